import { Legend, LegendEntry, LegendGroup } from '../src/chart/legend';
import { legendGroups } from '../src/chart/memoryChart';
import { describe as describeSource, statusLine } from '../src/chart/status';
import { SeriesInfo, SourceState } from '../src/protocol';

/** A series by its fields; its key is written from them, as the kernel writes it, and never read. */
const series = (device: string, quantity: string, node: string | null, more: Partial<SeriesInfo> = {}): SeriesInfo => ({
  key: [node, more.framework, device, quantity].filter(Boolean).join(' '),
  device,
  framework: null,
  quantity,
  source: 'nvml',
  simulated: false,
  node,
  ...more
});

// A source's state by its code, worded as the kernel words it in English (memory/_state_words.py).
const source = (name: string, code: string, node: string | null, text: string = code): SourceState => ({
  name,
  state: { code, args: {}, parts: [] },
  text,
  lead: null,
  simulated: false,
  simulation: null,
  node
});

const row = (key: string, name: string, group?: string): LegendEntry => ({
  key,
  kind: 'series',
  name,
  color: '#123456',
  style: 'solid',
  shown: true,
  group
});

/** The legend as a user reads it, top to bottom: "# heading [state]" for a group, the row's name for a line. */
function read(legend: Legend): string[] {
  return [...legend.node.children]
    .filter(child => !child.classList.contains('mgenv-chart-legend-head'))
    .map(child =>
      child.classList.contains('mgenv-chart-legend-group')
        ? `# ${child.querySelector('.mgenv-chart-legend-group-name')!.textContent} [${
            child.querySelector('.mgenv-chart-legend-group-state')!.textContent
          }]`
        : child.querySelector('.mgenv-chart-legend-name')!.textContent!
    );
}

describe('the legend with a cluster', () => {
  const allSeries = [
    series('gpu0', 'process', null),
    series('gpu0', 'process', 'node_a'),
    series('gpu0', 'process', 'node_b'),
    series('gpu1', 'process', 'node_a'),
    series('gpu1', 'process', 'node_b')
  ];
  const states = [
    source('nvml', 'ok', null),
    source('node_a (remote)', 'ok', 'node_a'),
    source('node_b (remote)', 'lost', 'node_b', 'lost: ConnectionError: raylet gone')
  ];

  it('groups the series by node, the kernel first, each node under its name and state', () => {
    const groups = legendGroups(allSeries, states);
    expect(groups).toEqual([
      { key: '', name: 'this kernel', state: null },
      { key: 'node_a', name: 'node_a', state: 'ok', stateText: 'ok' },
      { key: 'node_b', name: 'node_b', state: 'lost', stateText: 'lost: ConnectionError: raylet gone' }
    ]);
    const legend = new Legend(() => undefined);
    // The rows arrive in the order the series came, overlay lines last; the legend lists them node by node, a node's
    // total under it, and the lines of no group at the end.
    legend.setEntries(
      [
        row('gpu0 process', 'gpu0 process', ''),
        row('node_a gpu0 process', 'gpu0 process', 'node_a'),
        row('node_b gpu0 process', 'gpu0 process', 'node_b'),
        row('node_a gpu1 process', 'gpu1 process', 'node_a'),
        row('node_b gpu1 process', 'gpu1 process', 'node_b'),
        { key: 'total:gpu0', kind: 'overlay', name: 'gpu0 total (40 GiB)', color: '#f00', style: 'dotted', shown: true },
        { ...row('total:node_b gpu0', 'gpu0 total (16 GiB)', 'node_b'), kind: 'overlay' },
        { ...row('dtr_threshold', 'DTR eviction threshold (5 GiB)'), kind: 'overlay' }
      ],
      groups
    );
    expect(read(legend)).toEqual([
      '# this kernel []',
      'gpu0 process',
      '# node_a [ok]',
      'gpu0 process',
      'gpu1 process',
      '# node_b [lost]',
      'gpu0 process',
      'gpu1 process',
      'gpu0 total (16 GiB)',
      'gpu0 total (40 GiB)',
      'DTR eviction threshold (5 GiB)'
    ]);
  });

  it('marks a lost node lost, with the reason in its tooltip, its rows greyed; the others stay as they are', () => {
    const legend = new Legend(() => undefined);
    const entries = [row('node_a gpu0 used', 'gpu0 used', 'node_a'), row('node_b gpu0 used', 'gpu0 used', 'node_b')];
    const live: LegendGroup[] = [
      { key: 'node_a', name: 'node_a', state: 'ok' },
      { key: 'node_b', name: 'node_b', state: 'ok' }
    ];
    legend.setEntries(entries, live);
    const headings = () => [...legend.node.querySelectorAll<HTMLElement>('.mgenv-chart-legend-group')];
    const stale = () => [...legend.node.querySelectorAll('.mgenv-chart-legend-stale')].map(b => b.textContent);
    expect(headings().map(h => h.classList.contains('mgenv-chart-legend-group-lost'))).toEqual([false, false]);
    expect(stale()).toEqual([]);
    const headingBefore = headings()[1];

    legend.setEntries(entries, [live[0], { ...live[1], state: 'lost', stateText: 'lost: ConnectionError: raylet gone' }]);
    const [a, b] = headings();
    expect(b).toBe(headingBefore); // a state change updates the heading in place
    expect(b.classList.contains('mgenv-chart-legend-group-lost')).toBe(true);
    expect(b.querySelector('.mgenv-chart-legend-group-state')!.textContent).toBe('lost');
    expect(b.title).toBe('node_b: lost: ConnectionError: raylet gone');
    expect(a.classList.contains('mgenv-chart-legend-group-lost')).toBe(false);
    expect(a.title).toBe('node_a: ok');
    expect(stale()).toEqual(['gpu0 used']);
    expect(legend.node.querySelector('.mgenv-chart-legend-stale')!.closest('.mgenv-chart-legend')).toBe(legend.node);
    expect(
      [...legend.node.querySelectorAll('.mgenv-chart-legend-stale')].map(
        button => (button as HTMLElement).previousElementSibling?.classList.contains('mgenv-chart-legend-group-lost')
      )
    ).toEqual([true]); // the greyed row is node_b's, right under its heading

    // A node that says something else than ok or lost shows it as it is.
    legend.setEntries(entries, [{ ...live[0], state: 'quiet', stateText: 'no data for 7 s' }, live[1]]);
    expect(headings()[0].querySelector('.mgenv-chart-legend-group-state')!.textContent).toBe('no data for 7 s');
    expect(stale()).toEqual([]);
  });

  it('has no groups, and no headings, without nodes', () => {
    expect(legendGroups([series('gpu0', 'used', null)], [source('nvml', 'ok', null)])).toEqual([]);
    const legend = new Legend(() => undefined);
    legend.setEntries([row('gpu0 used', 'gpu0 used')], []);
    expect(read(legend)).toEqual(['gpu0 used']);
  });

  it('has no kernel group when only nodes have series', () => {
    expect(legendGroups([series('gpu0', 'used', 'node_a')], []).map(g => g.key)).toEqual(['node_a']);
  });
});

describe('the status line with a cluster', () => {
  it('sums the nodes up in one part and names the lost one; the tooltip has every node state whole', () => {
    const states = [
      source('nvml', 'ok', null),
      source('node_a (remote)', 'ok', 'node_a'),
      source('node_b (remote)', 'ok', 'node_b'),
      source('node_c (remote)', 'lost', 'node_c', 'lost: ConnectionError: raylet gone')
    ];
    const line = statusLine(states, true);
    expect(line.text).toBe('3 nodes: 2 ok, node_c lost · NVML ok');
    expect(line.title.split('\n')).toEqual([
      'NVML ok',
      'node_a: ok',
      'node_b: ok',
      'node_c: lost: ConnectionError: raylet gone'
    ]);
    expect(statusLine(states.slice(0, 3), true).text).toBe('2 nodes ok · NVML ok');
    expect(describeSource(source('node_b (remote)', 'starting', 'node_b'))).toBe('node_b: starting');
    expect(statusLine([source('node_b (remote)', 'starting', 'node_b')], false).text).toBe('No data yet · 1 node: node_b starting');
  });
});
