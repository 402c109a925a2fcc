import { SeriesStore } from '../src/chart/store';
import { SeriesInfo } from '../src/protocol';

const series: SeriesInfo[] = [
  { key: 'gpu0', device: 'gpu0', framework: null, quantity: 'used', source: 'nvml', simulated: true, node: null },
  { key: 'proc0', device: 'gpu0', framework: null, quantity: 'process', source: 'nvml', simulated: true, node: null }
];

describe('SeriesStore', () => {
  it('appends batches column-wise and tracks current and peak', () => {
    const store = new SeriesStore(10);
    store.setSeries(series);
    store.append({ t: [1, 2, 3], columns: { gpu0: [5, 9, 7], proc0: [1, null, 2] } });
    expect(store.times).toEqual([1, 2, 3]);
    expect(store.current('gpu0')).toBe(7);
    expect(store.peak('gpu0')).toBe(9);
    expect(store.current('proc0')).toBe(2);
  });

  it('fills a series missing from a batch with nulls', () => {
    const store = new SeriesStore();
    store.setSeries(series);
    store.append({ t: [1], columns: { gpu0: [1] } });
    expect(store.column('proc0')).toEqual([null]);
  });

  it('stays bounded and recomputes the peak when the peak falls out', () => {
    const store = new SeriesStore(3);
    store.setSeries(series);
    store.append({ t: [1, 2, 3, 4, 5], columns: { gpu0: [100, 1, 2, 3, 4] } });
    expect(store.length).toBe(3);
    expect(store.times).toEqual([3, 4, 5]);
    expect(store.peak('gpu0')).toBe(4);
  });

  it('replace drops the old data; new series start empty', () => {
    const store = new SeriesStore();
    store.setSeries(series);
    store.append({ t: [1], columns: { gpu0: [1] } });
    store.replace({ t: [7, 8], columns: { gpu0: [3, 4] } });
    expect(store.times).toEqual([7, 8]);
    store.setSeries([...series, { key: 'x', device: 'gpu1', framework: null, quantity: 'used', source: 'nvml', simulated: false, node: null }]);
    expect(store.column('x')).toEqual([null, null]);
    expect(store.column('gpu0')).toEqual([3, 4]);
  });
});
