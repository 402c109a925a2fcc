/**
 * Where the chart's labels go so that none covers another: overlay labels stacked in the right-hand gutter as near
 * their line as the others allow, and cell markers that are too close to label apart merged under one label.
 * Pure functions of sizes and positions (CSS pixels), so they are tested without a browser.
 */

export interface StackItem {
  key: string;
  /** Where the label wants its middle: its line's y. */
  y: number;
  height: number;
}

export interface Stacked {
  key: string;
  /** The label box's top edge. */
  top: number;
  height: number;
}

/**
 * Labels in one column (the gutter) between `top` and `bottom`: each as close to its `y` as possible, none
 * overlapping (at least `gap` apart), none outside. When they cannot all fit, the later ones in `items` (the less
 * important) are left out; they are still in the legend.
 */
export function stackLabels(items: StackItem[], top: number, bottom: number, gap = 2): Stacked[] {
  const room = bottom - top;
  const kept: StackItem[] = [];
  let used = 0;
  for (const item of items) {
    const need = item.height + (kept.length ? gap : 0);
    if (used + need <= room + 1e-9) {
      kept.push(item);
      used += need;
    }
  }
  const placed = kept
    .map(item => ({ key: item.key, height: item.height, top: item.y - item.height / 2 }))
    .sort((a, b) => a.top - b.top);
  // Down from the top: push each label below the one above it...
  let floor = top;
  for (const label of placed) {
    label.top = Math.max(label.top, floor);
    floor = label.top + label.height + gap;
  }
  // ...then up from the bottom: pull back those pushed out, which shifts their upper neighbours only as needed.
  let ceiling = bottom;
  for (let i = placed.length - 1; i >= 0; i--) {
    const label = placed[i];
    label.top = Math.min(label.top, ceiling - label.height);
    ceiling = label.top - gap;
  }
  return placed;
}

export interface MarkerItem {
  cell: number;
  /** The marker line's x. */
  x: number;
}

export interface MarkerGroup {
  cells: number[];
  /** The first marker's x (where the group begins). */
  x: number;
  /** The label's left edge and width. */
  left: number;
  width: number;
  text: string;
}

/**
 * Labels for cell markers along a strip from `left` to `right`: a label starts just right of its marker; markers
 * whose labels would touch are merged into one label ("[21–23]"), and a label that would run past `right` is moved
 * left, merging again if that makes it touch its neighbour. `measure` gives a text's width.
 */
export function groupMarkers(
  markers: MarkerItem[],
  measure: (text: string) => number,
  left: number,
  right: number,
  gap = 4,
  offset = 3
): MarkerGroup[] {
  const sorted = [...markers].sort((a, b) => a.x - b.x);
  const make = (cells: number[], x: number): MarkerGroup => {
    const text = cellRange(cells);
    const width = measure(text);
    const start = Math.max(left, Math.min(x + offset, right - width));
    return { cells, x, left: start, width, text };
  };
  const groups: MarkerGroup[] = [];
  for (const marker of sorted) {
    const last = groups[groups.length - 1];
    if (last && marker.x + offset < last.left + last.width + gap) {
      groups[groups.length - 1] = make([...last.cells, marker.cell], last.x);
    } else {
      groups.push(make([marker.cell], marker.x));
    }
    // A label pushed left at the right edge (or grown by a merge) may now touch the one before it.
    while (groups.length > 1) {
      const [before, after] = groups.slice(-2);
      if (after.left >= before.left + before.width + gap) {
        break;
      }
      groups.splice(-2, 2, make([...before.cells, ...after.cells], before.x));
    }
  }
  return groups;
}

/** "[21]", "[21–23]", "[21, 25]", "[21–23, 25]"; more than two runs: "[21…40]". */
export function cellRange(cells: number[]): string {
  const sorted = [...new Set(cells)].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const cell of sorted) {
    const run = runs[runs.length - 1];
    if (run && cell === run[1] + 1) {
      run[1] = cell;
    } else {
      runs.push([cell, cell]);
    }
  }
  if (runs.length > 2) {
    return `[${sorted[0]}…${sorted[sorted.length - 1]}]`;
  }
  return `[${runs.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(', ')}]`;
}

export interface GutterLabel {
  key: string;
  name: string;
  value: string;
}

export interface Gutter {
  /** The gutter's width, padding included. */
  width: number;
  /** The labels that take two lines (name over value) to fit. */
  twoLines: Set<string>;
}

/**
 * How wide the right-hand gutter for overlay labels must be: wide enough for every label on one line when that fits
 * in `limit`, else labels go on two lines (name over value) and the gutter takes the widest of those, up to `limit`
 * (a label still wider is cut with an ellipsis; its tooltip and the legend have it whole).
 */
export function fitGutter(labels: GutterLabel[], limit: number, measure: (text: string) => number, padding = 8): Gutter {
  const twoLines = new Set<string>();
  let widest = 0;
  for (const label of labels) {
    const one = measure(`${label.name} ${label.value}`);
    if (one + padding <= limit) {
      widest = Math.max(widest, one);
    } else {
      twoLines.add(label.key);
      widest = Math.max(widest, measure(label.name), measure(label.value));
    }
  }
  return { width: labels.length ? Math.min(limit, Math.ceil(widest + padding)) : 0, twoLines };
}
