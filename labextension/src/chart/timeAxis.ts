/**
 * The chart's time axis: time since the kernel started ("45s", "1m30s", "2h05m"), which reads the same at any width
 * and needs no date, with the wall-clock time given on hover. Samples keep their epoch times (CSV export, cell
 * markers); only the ticks are placed and written relative to the origin.
 */

/** Tick steps in seconds: round numbers of seconds, minutes and hours. */
export const TIME_INCRS: number[] = [
  0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800,
  604800
];

/** Ticks every `step` seconds counted from `origin` (not from the epoch), within [min, max]. */
export function elapsedSplits(min: number, max: number, step: number, origin: number): number[] {
  if (!(step > 0) || !isFinite(min) || !isFinite(max) || max < min) {
    return [];
  }
  const ticks: number[] = [];
  const first = Math.ceil((min - origin) / step - 1e-9);
  for (let k = first; origin + k * step <= max + 1e-9 && ticks.length < 1000; k++) {
    ticks.push(origin + k * step);
  }
  return ticks;
}

/**
 * The ticks for [min, max]: every `step` seconds from `origin`, as uPlot chose the step for the room a label needs
 * (`spacing` pixels apart). Where that leaves a single tick (a narrow plot, a step of 5 s over 7 s of data), the next
 * smaller step is taken if its ticks are still `minSpacing` pixels apart: an axis with one tick says nothing.
 */
export function timeTicks(min: number, max: number, step: number, spacing: number, origin: number, minSpacing = 36): number[] {
  const ticks = elapsedSplits(min, max, step, origin);
  const index = TIME_INCRS.indexOf(step);
  if (ticks.length < 2 && index > 0) {
    const smaller = TIME_INCRS[index - 1];
    if ((spacing * smaller) / step >= minSpacing) {
      return elapsedSplits(min, max, smaller, origin);
    }
  }
  return ticks;
}

/**
 * Seconds since the origin, as short as the step allows: "0s", "45s", "1m", "1m30s", "12m", "1h", "1h05m",
 * "1h05m30s"; with sub-second steps "12.5s" or "1m2.5s". Negative values (a sample taken before the origin, which
 * only clock skew produces) get a minus sign.
 */
export function formatElapsed(seconds: number, step = 1): string {
  if (!isFinite(seconds)) {
    return '–';
  }
  const sign = seconds < 0 ? '-' : '';
  const decimals = step < 1 ? Math.min(3, Math.max(1, Math.ceil(-Math.log10(step) - 1e-9))) : 0;
  const scale = 10 ** decimals;
  let rest = Math.round(Math.abs(seconds) * scale) / scale;
  const hours = Math.floor(rest / 3600);
  rest -= hours * 3600;
  const minutes = Math.floor(rest / 60);
  const secs = rest - minutes * 60;
  const secsText = decimals ? trim(secs.toFixed(decimals)) : String(Math.round(secs));
  if (hours) {
    const mm = String(minutes).padStart(2, '0');
    return `${sign}${hours}h` + (minutes || secs ? `${mm}m` : '') + (secs ? `${secsText.padStart(2, '0')}s` : '');
  }
  if (minutes) {
    return `${sign}${minutes}m` + (secs ? `${secsText}s` : '');
  }
  return `${sign}${secsText}s`;
}

/** The wall-clock time of an epoch time, for hover: "14:02:31" (local time, 24 h), to the tenth with `tenths`. */
export function formatClock(epochSeconds: number, tenths = false): string {
  const date = new Date(epochSeconds * 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  const clock = `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
  return tenths ? `${clock}.${Math.floor(date.getMilliseconds() / 100)}` : clock;
}

function trim(text: string): string {
  return text.replace(/\.?0+$/, '');
}
