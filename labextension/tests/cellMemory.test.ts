/**
 * A cell's memory record as a notebook file keeps it (cellmemory/record.ts) and its badge (cellmemory/badge.ts): a
 * record from a hostile or stale file is taken only where it has the record's shape — no script, no huge text, no
 * endless list — and drawn with textContent; the badge says the peak, what the cell kept, the change against the
 * run before and a leak, with every device in its tooltip.
 */
import { nullTranslator } from '@jupyterlab/translation';

import { CELL_MEMORY_VERSION, CellMemoryRecord } from '../src/protocol';
import { badgeNode, badgeText } from '../src/cellmemory/badge';
import { MAX_DEVICES, MAX_GREW, nextRecord, readRecord } from '../src/cellmemory/record';

const trans = nullTranslator.load('mgenv_jupyter');
const MiB = 1 << 20;

function record(overrides: Partial<CellMemoryRecord> = {}): CellMemoryRecord {
  return {
    v: CELL_MEMORY_VERSION,
    execution_count: 7,
    time: 1795760000,
    duration: 1.5,
    ok: true,
    simulated: false,
    devices: [
      { device: 'gpu0', peak: 2048 * MiB, kept: 256 * MiB, before: 512 * MiB, after: 768 * MiB },
      { device: 'host', peak: 900 * MiB, kept: 0, before: 900 * MiB, after: 900 * MiB }
    ],
    leak: null,
    previous: null,
    ...overrides
  };
}

describe('readRecord', () => {
  it('reads back what the kernel wrote', () => {
    const written = record();
    expect(readRecord({ memory: JSON.parse(JSON.stringify(written)) })).toEqual(written);
  });

  it('takes nothing from a file without a record of its version', () => {
    expect(readRecord(undefined)).toBeNull();
    expect(readRecord({ memory: { ...record(), v: 99 } })).toBeNull();
    expect(readRecord({ memory: { ...record(), devices: [] } })).toBeNull();
    expect(readRecord({ memory: 'peak 1 GiB' })).toBeNull();
    expect(readRecord([record()])).toBeNull();
  });

  it('keeps only what has the shape of a record', () => {
    const hostile = {
      ...record(),
      devices: [
        { device: '<img src=x onerror=alert(1)>', peak: 'a lot', kept: Infinity, before: null, after: 1e3 },
        { device: 'x'.repeat(10_000), peak: 1 },
        ...Array.from({ length: 1000 }, (_, i) => ({ device: `gpu${i}`, peak: i }))
      ],
      leak: { device: 'host', runs: 3, kept: [1, 'two', 3], grew: Array.from({ length: 500 }, () => ({ name: 'v', bytes: 1 })) },
      previous: 'yesterday'
    };
    const read = readRecord({ memory: hostile })!;
    expect(read.devices.length).toBe(MAX_DEVICES - 1); // the over-long name is dropped; the rest cut at the bound
    expect(read.devices[0]).toEqual({ device: '<img src=x onerror=alert(1)>', peak: null, kept: null, before: null, after: 1000 });
    expect(read.leak!.kept).toEqual([1, 3]);
    expect(read.leak!.grew.length).toBe(MAX_GREW);
    expect(read.previous).toBeNull();
    const badge = badgeNode(read, trans)!;
    expect(badge.querySelector('img')).toBeNull(); // text, never markup
    expect(badge.title).toContain('<img src=x onerror=alert(1)>');
  });
});

describe('the badge', () => {
  it('says the headline device’s peak and what the cell kept, every device in its tooltip', () => {
    const { lines, title } = badgeText(record(), trans);
    expect(lines).toEqual(['peak 2 GiB', 'kept +256 MiB']);
    expect(title.split('\n')).toEqual([
      'gpu0: peak 2 GiB, kept +256 MiB (before 512 MiB, after 768 MiB)',
      'host: peak 900 MiB, kept ±0 B (before 900 MiB, after 900 MiB)'
    ]);
  });

  it('shows the change against the run before', () => {
    const before = record({ devices: [{ device: 'gpu0', peak: 4096 * MiB, kept: 0, before: 0, after: 0 }] });
    const after = nextRecord(record({ execution_count: 9 }), before);
    expect(after.previous).toEqual({ execution_count: 7, devices: before.devices });
    const { lines, title } = badgeText(after, trans);
    expect(lines).toContain('−2 GiB vs last');
    expect(title).toContain('peak −2 GiB since the last run');
  });

  it('marks a leak and names what grew', () => {
    const leaking = record({
      leak: { device: 'host', runs: 3, kept: [256 * MiB, 256 * MiB, 256 * MiB], grew: [{ name: 'cache', bytes: 512 * MiB }] }
    });
    const badge = badgeNode(leaking, trans)!;
    expect(badge.classList.contains('mgenv-cell-memory-leak')).toBe(true);
    expect(badge.textContent).toContain('leak: cache');
    expect(badge.title).toContain('Leak: each of the last 3 runs kept more on host; grew: cache +512 MiB');
  });

  it('draws nothing without a record', () => {
    expect(badgeNode(null, trans)).toBeNull();
  });
});
