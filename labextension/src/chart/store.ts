import { SeriesInfo } from '../protocol';

/** Rows to add: times and one column per series key. */
export interface Rows {
  t: number[];
  columns: Record<string, (number | null)[]>;
}

/**
 * The chart's data, column-wise, bounded to `maxPoints` (oldest dropped first). Keeps each series' current value
 * and peak so the legend never scans the data.
 */
export class SeriesStore {
  readonly maxPoints: number;
  private _series: SeriesInfo[] = [];
  private _t: number[] = [];
  private _columns = new Map<string, (number | null)[]>();
  private _peaks = new Map<string, number>();

  constructor(maxPoints = 100_000) {
    this.maxPoints = maxPoints;
  }

  get series(): SeriesInfo[] {
    return this._series;
  }

  get length(): number {
    return this._t.length;
  }

  get times(): number[] {
    return this._t;
  }

  column(key: string): (number | null)[] {
    return this._columns.get(key) ?? [];
  }

  /** Declare the series; data of series that stay is kept, new ones start empty (nulls). */
  setSeries(series: SeriesInfo[]): void {
    const columns = new Map<string, (number | null)[]>();
    for (const s of series) {
      columns.set(s.key, this._columns.get(s.key) ?? new Array(this._t.length).fill(null));
    }
    this._series = series;
    this._columns = columns;
    this._recomputePeaks();
  }

  replace(rows: Rows): void {
    this._t = [];
    for (const key of this._columns.keys()) {
      this._columns.set(key, []);
    }
    this._peaks.clear();
    this.append(rows);
  }

  append(batch: Rows): void {
    const n = batch.t.length;
    for (let i = 0; i < n; i++) {
      this._t.push(batch.t[i]);
    }
    for (const [key, column] of this._columns) {
      const incoming = batch.columns[key];
      let peak = this._peaks.get(key) ?? -Infinity;
      for (let i = 0; i < n; i++) {
        const v = incoming ? incoming[i] ?? null : null;
        column.push(v);
        if (v !== null && v > peak) {
          peak = v;
        }
      }
      if (peak > -Infinity) {
        this._peaks.set(key, peak);
      }
    }
    const excess = this._t.length - this.maxPoints;
    if (excess > 0) {
      this._t.splice(0, excess);
      for (const column of this._columns.values()) {
        column.splice(0, excess);
      }
      this._recomputePeaks();
    }
  }

  current(key: string): number | null {
    const column = this.column(key);
    for (let i = column.length - 1; i >= 0; i--) {
      if (column[i] !== null) {
        return column[i];
      }
    }
    return null;
  }

  peak(key: string): number | null {
    return this._peaks.get(key) ?? null;
  }

  private _recomputePeaks(): void {
    this._peaks.clear();
    for (const [key, column] of this._columns) {
      let peak = -Infinity;
      for (const v of column) {
        if (v !== null && v > peak) {
          peak = v;
        }
      }
      if (peak > -Infinity) {
        this._peaks.set(key, peak);
      }
    }
  }
}
