/**
 * A cell's memory record as the notebook keeps it (protocol/_cells.py's CellMemoryRecord under
 * CELL_METADATA_KEY → "memory"). What a notebook file holds is data from outside: `readRecord` takes only what has
 * the record's shape (finite numbers, short texts, bounded lists) and ignores the rest, so a hostile or stale file
 * draws nothing strange. `nextRecord` keeps the run before as `previous`, which the badge compares against.
 */
import {
  CELL_MEMORY_VERSION,
  CellMemoryRecord,
  DeviceMemoryInfo,
  GrewInfo,
  LeakInfo,
  PreviousRunInfo
} from '../protocol';

export const MAX_DEVICES = 16;
export const MAX_GREW = 10;
export const MAX_TEXT = 100;

type Json = { [key: string]: unknown };

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function size(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? Math.round(value) : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_TEXT ? value : null;
}

function devices(value: unknown): DeviceMemoryInfo[] {
  if (!Array.isArray(value)) {
    return [];
  }
  const found: DeviceMemoryInfo[] = [];
  for (const item of value.slice(0, MAX_DEVICES)) {
    const device = isObject(item) ? text(item.device) : null;
    if (isObject(item) && device) {
      found.push({
        device,
        peak: size(item.peak),
        kept: size(item.kept),
        before: size(item.before),
        after: size(item.after)
      });
    }
  }
  return found;
}

function leak(value: unknown): LeakInfo | null {
  if (!isObject(value)) {
    return null;
  }
  const device = text(value.device);
  const runs = size(value.runs);
  if (!device || runs === null || !Array.isArray(value.kept) || !Array.isArray(value.grew)) {
    return null;
  }
  const grew: GrewInfo[] = [];
  for (const item of value.grew.slice(0, MAX_GREW)) {
    const name = isObject(item) ? text(item.name) : null;
    const bytes = isObject(item) ? size(item.bytes) : null;
    if (name && bytes !== null) {
      grew.push({ name, bytes });
    }
  }
  const kept = value.kept.slice(0, MAX_DEVICES).map(size).filter((k): k is number => k !== null);
  return { device, runs, kept, grew };
}

function previous(value: unknown): PreviousRunInfo | null {
  if (!isObject(value)) {
    return null;
  }
  return { execution_count: size(value.execution_count), devices: devices(value.devices) };
}

/** The record a cell's metadata holds, or null where it holds none of the known version. */
export function readRecord(metadata: unknown): CellMemoryRecord | null {
  const memory = isObject(metadata) ? metadata.memory : null;
  if (!isObject(memory) || memory.v !== CELL_MEMORY_VERSION) {
    return null;
  }
  const time = size(memory.time);
  const shown = devices(memory.devices);
  if (time === null || shown.length === 0) {
    return null;
  }
  return {
    v: CELL_MEMORY_VERSION,
    execution_count: size(memory.execution_count),
    time,
    duration: typeof memory.duration === 'number' && Number.isFinite(memory.duration) ? memory.duration : 0,
    ok: memory.ok !== false,
    simulated: memory.simulated === true,
    devices: shown,
    leak: leak(memory.leak),
    previous: previous(memory.previous)
  };
}

/** The record to keep after a run: the kernel's, with the run the metadata held before as `previous`. */
export function nextRecord(incoming: CellMemoryRecord, before: CellMemoryRecord | null): CellMemoryRecord {
  const last = before ? { execution_count: before.execution_count, devices: before.devices } : null;
  return { ...incoming, previous: last };
}

/** The device a badge speaks of: the first GPU the kernel listed (it lists them first), else the host. */
export function headline(record: { devices: DeviceMemoryInfo[] }): DeviceMemoryInfo | null {
  return record.devices[0] ?? null;
}
