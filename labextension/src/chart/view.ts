/**
 * What part of the data the chart shows, so that it stays readable however long the kernel runs: a rolling window of
 * the last few minutes by default (the choice of window is the user's, "everything" included), and a y-axis fitted to
 * the data in that window rather than to the device's size, with the overlay lines that lie far above the data kept
 * as labels at the top instead of squashing the curve against the bottom. Pure functions of numbers, tested without
 * a browser.
 */

import { DEFAULT_WINDOW, OVERLAY_REACH } from '../protocol';

/** The window a chart opens with: the last five minutes (a rolling window, as nvdashboard's and
 * jupyter-resource-usage's); the overlays' reach. Both come from the wire's definition, which the static picture of a
 * saved notebook draws by too. */
export { DEFAULT_WINDOW, OVERLAY_REACH };

/** The windows a user can choose, in seconds; null shows everything since the chart's first sample. */
export const WINDOWS: (number | null)[] = [60, DEFAULT_WINDOW, 900, 3600, null];

/**
 * The x range to show for data from `first` to `last` (seconds) with a rolling `window` (null: all of it): the last
 * `window` seconds, or everything while there is less than that.
 */
export function windowRange(first: number, last: number, window: number | null): [number, number] {
  if (window === null || !(last - first > window)) {
    return [first, last];
  }
  return [last - window, last];
}

// An overlay line (a device's total, a threshold) is drawn inside the plot when it is at most OVERLAY_REACH times the
// highest value shown; farther up it would squash the data against the bottom (a 2 GiB curve under a 40 GiB total),
// so it is shown as a label at the top instead.

/** Room above the highest value drawn, as a share of it. */
const HEADROOM = 0.08;

/** The y range when nothing has a size yet: 0 to 1 GiB. */
const EMPTY_TOP = 1024 ** 3;

export interface YFit {
  /** The y range: from 0 to a little above the highest value drawn. */
  range: [number, number];
  /** The overlays (their byte values' indices in `overlays`) above the range: labelled at the top, not drawn. */
  above: number[];
}

/**
 * The y range for data whose highest value in view is `dataMax` (null: none), with overlay lines at `overlays` bytes:
 * from 0 to a little above the data and the lines within OVERLAY_REACH of it; the lines beyond are `above`. With
 * `fitToData` false every line is in range (an out-of-memory timeline, whose lines are the point).
 */
export function fitY(dataMax: number | null, overlays: number[], fitToData = true): YFit {
  const data = dataMax !== null && isFinite(dataMax) && dataMax > 0 ? dataMax : 0;
  if (data === 0 && fitToData) {
    // Nothing to fit yet: a first gigabyte, or less where a line (the lowest) is lower; the lines above it as labels.
    const top = Math.min(EMPTY_TOP, ...overlays.filter(bytes => bytes > 0));
    return { range: [0, top * (1 + HEADROOM)], above: overlays.flatMap((bytes, i) => (bytes > top ? [i] : [])) };
  }
  const reach = fitToData ? data * OVERLAY_REACH : Infinity;
  const above = overlays.flatMap((bytes, i) => (bytes > reach ? [i] : []));
  const top = Math.max(data, ...overlays.filter(bytes => bytes <= reach));
  return { range: [0, (top > 0 ? top : EMPTY_TOP) * (1 + HEADROOM)], above };
}
