/**
 * The wire between the kernel and the front end, defined once here and once in mgenv_jupyter/protocol.py; a test
 * checks that the two agree. Sizes are bytes; times are seconds since the epoch.
 */

export const CHART_PROTOCOL_VERSION = 1;

/** One line on the chart. */
export interface SeriesMeta {
  key: string;
  label: string;
  device: string;
  kind: string; // "device_used" | "process_tree" | "allocated" | "reserved" | "host"
  simulated: boolean;
}

/** A horizontal line: device total, DTR eviction threshold, Paddle's fraction cap. */
export interface Overlay {
  key: string;
  label: string;
  device: string;
  value: number;
  note: string;
}

/** One executed cell: when it ran and the peak per series while it ran. */
export interface CellMarker {
  cell: number;
  start: number;
  end: number | null;
  peak: Record<string, number>;
}

/** What a memory source is doing, in words ("ok", "no NVIDIA driver", "simulated", ...). */
export interface SourceState {
  source: string;
  state: string;
  ok: boolean;
  simulated: boolean;
}

/** New samples, column-wise; `null` where a series had no value at that time. Sent a few times a second at most. */
export interface ChartBatch {
  type: 'batch';
  version: number;
  t: number[];
  values: Record<string, (number | null)[]>;
}

/** The whole (downsampled) history, sent when a view opens so a re-rendered chart has the past too. */
export interface ChartSnapshot {
  type: 'snapshot';
  version: number;
  t: number[];
  values: Record<string, (number | null)[]>;
}

/** Front end → kernel: a view opened and wants the snapshot. */
export interface ChartHello {
  type: 'hello';
  version: number;
}

export type ChartMessage = ChartBatch | ChartSnapshot;
