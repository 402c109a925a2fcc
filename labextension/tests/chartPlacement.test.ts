import { cellRange, fitGutter, groupMarkers, stackLabels } from '../src/chart/placement';

/** Every pair of [start, start + size) intervals is disjoint, `gap` apart. */
function apart(boxes: { start: number; size: number }[], gap: number): boolean {
  const sorted = [...boxes].sort((a, b) => a.start - b.start);
  return sorted.every((box, i) => i === 0 || box.start >= sorted[i - 1].start + sorted[i - 1].size + gap - 1e-9);
}

describe('overlay labels stacked in the gutter', () => {
  it('leaves labels on their lines when they do not touch', () => {
    const placed = stackLabels(
      [
        { key: 'total', y: 10, height: 14 },
        { key: 'dtr', y: 150, height: 14 }
      ],
      0,
      200
    );
    expect(placed).toEqual([
      { key: 'total', top: 3, height: 14 },
      { key: 'dtr', top: 143, height: 14 }
    ]);
  });

  it('moves labels of lines at the same height apart (DTR 2 GiB and Paddle 2 GiB) and keeps them in the gutter', () => {
    const items = [
      { key: 'total', y: 20, height: 14 },
      { key: 'dtr', y: 180, height: 14 },
      { key: 'paddle', y: 180, height: 27 }
    ];
    const placed = stackLabels(items, 0, 190);
    expect(apart(placed.map(p => ({ start: p.top, size: p.height })), 2)).toBe(true);
    expect(placed.every(p => p.top >= 0 && p.top + p.height <= 190)).toBe(true);
    // the crowded pair is pushed up from the bottom edge, as little as needed
    const dtr = placed.find(p => p.key === 'dtr')!;
    const paddle = placed.find(p => p.key === 'paddle')!;
    expect(Math.max(dtr.top + dtr.height, paddle.top + paddle.height)).toBe(190);
  });

  it('leaves out the last labels when they cannot all fit (the legend still lists them)', () => {
    const items = ['a', 'b', 'c', 'd'].map(key => ({ key, y: 20, height: 14 }));
    const placed = stackLabels(items, 0, 40);
    expect(placed.map(p => p.key)).toEqual(['a', 'b']);
    expect(apart(placed.map(p => ({ start: p.top, size: p.height })), 2)).toBe(true);
  });

  it('never overlaps, whatever the lines', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let run = 0; run < 200; run++) {
      const items = Array.from({ length: 1 + Math.floor(random() * 6) }, (_, i) => ({
        key: `k${i}`,
        y: random() * 220 - 10,
        height: random() < 0.5 ? 14 : 27
      }));
      const placed = stackLabels(items, 0, 200);
      expect(apart(placed.map(p => ({ start: p.top, size: p.height })), 2)).toBe(true);
      expect(placed.every(p => p.top >= -1e-9 && p.top + p.height <= 200 + 1e-9)).toBe(true);
    }
  });
});

describe('the gutter for overlay labels', () => {
  const measure = (text: string) => text.length * 6;
  const labels = [
    { key: 'total', name: 'total', value: '40 GiB' },
    { key: 'paddle', name: 'Paddle', value: '20 GiB' }
  ];

  it('is as wide as the widest label on one line when there is room', () => {
    expect(fitGutter(labels, 200, measure, 10)).toEqual({ width: 13 * 6 + 10, twoLines: new Set() });
  });

  it('puts a label on two lines (name over size) when one line does not fit', () => {
    const gutter = fitGutter(labels, 85, measure, 10);
    expect(gutter.twoLines).toEqual(new Set(['paddle'])); // "total 40 GiB" still fits on one line
    expect(gutter.width).toBe(12 * 6 + 10);
  });

  it('takes no room without overlays', () => {
    expect(fitGutter([], 200, measure).width).toBe(0);
  });
});

describe('cell markers', () => {
  const measure = (text: string) => text.length * 6;

  it('labels each marker beside its line when they are apart', () => {
    const groups = groupMarkers(
      [
        { cell: 21, x: 10 },
        { cell: 22, x: 100 }
      ],
      measure,
      0,
      300
    );
    expect(groups.map(g => [g.text, g.left])).toEqual([
      ['[21]', 13],
      ['[22]', 103]
    ]);
  });

  it('merges markers too close to label apart, and no two labels touch', () => {
    const markers = [21, 22, 23, 24, 25].map((cell, i) => ({ cell, x: 50 + i * 3 }));
    const groups = groupMarkers([...markers, { cell: 30, x: 200 }], measure, 0, 300);
    expect(groups.map(g => g.text)).toEqual(['[21–25]', '[30]']);
    expect(apart(groups.map(g => ({ start: g.left, size: g.width })), 4)).toBe(true);
  });

  it('moves a label at the right edge left, merging with its neighbour if that makes them touch', () => {
    const groups = groupMarkers(
      [
        { cell: 1, x: 270 },
        { cell: 2, x: 298 }
      ],
      measure,
      0,
      300
    );
    expect(groups.every(g => g.left + g.width <= 300)).toBe(true);
    expect(apart(groups.map(g => ({ start: g.left, size: g.width })), 4)).toBe(true);
    expect(groups.map(g => g.text)).toEqual(['[1–2]']);
  });

  it('never overlaps, whatever the cells', () => {
    let seed = 11;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let run = 0; run < 200; run++) {
      const markers = Array.from({ length: 1 + Math.floor(random() * 12) }, (_, i) => ({ cell: i + 1, x: random() * 250 }));
      const groups = groupMarkers(markers, measure, 0, 250);
      expect(apart(groups.map(g => ({ start: g.left, size: g.width })), 4)).toBe(true);
      expect(groups.flatMap(g => g.cells).sort((a, b) => a - b)).toEqual(markers.map(m => m.cell));
    }
  });

  it('writes groups of cells compactly', () => {
    expect(cellRange([21])).toBe('[21]');
    expect(cellRange([23, 21, 22])).toBe('[21–23]');
    expect(cellRange([21, 25])).toBe('[21, 25]');
    expect(cellRange([21, 22, 23, 25])).toBe('[21–23, 25]');
    expect(cellRange([1, 3, 5, 9])).toBe('[1…9]');
  });
});
