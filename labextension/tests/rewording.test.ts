/**
 * Code acts on codes, never on sentences (issue 30): with every state's and every error's words reworded (wrapped in
 * «…», as tests/quality/test_rewording.py rewords the kernel's tables), the chart's status line and legend and the sidebar's
 * error handling act exactly as with the words as written. Only what is shown reads differently.
 */
import { Legend, LegendEntry } from '../src/chart/legend';
import { legendGroups } from '../src/chart/memoryChart';
import { statusLine } from '../src/chart/status';
import { SeriesInfo, SourceState } from '../src/protocol';
import { EnvModel } from '../src/sidebar/model';
import { entry, FRAMEWORKS } from './fakes';

type Words = (text: string) => string;
const asWritten: Words = text => text;
const reworded: Words = text => `«${text}»`;

/** A source's state as the kernel sends it: the code, and its words (reworded, no words start with the source). */
function source(words: Words, name: string, code: string, text: string, lead: string | null, node: string | null = null): SourceState {
  return {
    name,
    state: { code, args: {}, parts: [] },
    text: words(text),
    lead: words === asWritten ? lead : null,
    simulated: false,
    simulation: null,
    node
  };
}

function sources(words: Words): SourceState[] {
  return [
    source(words, 'nvml', 'ok', 'ok', null),
    source(words, 'megengine', 'not_imported', 'megengine is not imported', 'is not imported'),
    source(words, 'paddle', 'holds_nothing', 'paddle holds no GPU memory yet', 'holds no GPU memory yet'),
    source(words, 'torch', 'sees_no_gpu', 'torch sees no GPU', 'sees no GPU'),
    source(words, 'host', 'host_idle', 'idle: GPUs are visible (host memory is the fallback)', null),
    source(words, 'node_a (remote)', 'ok', 'ok', null, 'node_a'),
    source(words, 'node_b (remote)', 'quiet', 'no data for 7 s', null, 'node_b'),
    source(words, 'node_c (remote)', 'lost', 'lost: ConnectionError: raylet gone', null, 'node_c')
  ];
}

/** What the status line decides: which sources it names, in which order, and how it sums the nodes up. */
function decisions(words: Words): { shown: string[]; nodes: string; ok: boolean[] } {
  const line = statusLine(sources(words), true);
  const parts = line.text.split(' · ');
  return {
    shown: parts.slice(1).map(part => part.split(/[ :]/)[0]),
    nodes: parts[0].replace(/node_b .*/, 'node_b …'),
    ok: parts.slice(1).map(part => / ok\b/.test(part))
  };
}

const series = (key: string, node: string | null): SeriesInfo => ({
  key,
  device: 'gpu0',
  framework: null,
  quantity: 'used',
  source: 'nvml',
  simulated: false,
  node
});

describe('rewording every state', () => {
  it('changes what the status line says, not what it decides', () => {
    expect(statusLine(sources(reworded), true).text).not.toBe(statusLine(sources(asWritten), true).text);
    expect(decisions(reworded)).toEqual(decisions(asWritten));
    expect(decisions(asWritten)).toEqual({
      shown: ['NVML', 'Paddle', 'PyTorch'], // not imported and the idle host stay out while there is data
      nodes: '3 nodes: 1 ok, node_b …',
      ok: [true, true, false]
    });
    expect(statusLine(sources(reworded), true).text).toContain('node_c lost');
    expect(statusLine(sources(reworded), false).text.split(' · ')).toHaveLength(7); // before data: every source
  });

  it('marks the same node lost in the legend', () => {
    const lostHeadings = (words: Words) => {
      const groups = legendGroups([series('node_b gpu0 used', 'node_b'), series('node_c gpu0 used', 'node_c')], sources(words));
      const legend = new Legend(() => undefined);
      const row = (group: string): LegendEntry => ({
        key: `${group} gpu0 used`,
        kind: 'series',
        name: 'gpu0 used',
        color: '#123456',
        style: 'solid',
        shown: true,
        group
      });
      legend.setEntries([row('node_b'), row('node_c')], groups);
      return [...legend.node.querySelectorAll('.mgenv-chart-legend-group')].map(h => [
        h.classList.contains('mgenv-chart-legend-group-lost'),
        h.classList.contains('mgenv-chart-legend-group-ok')
      ]);
    };
    expect(lostHeadings(reworded)).toEqual(lostHeadings(asWritten));
    expect(lostHeadings(asWritten)).toEqual([
      [false, false],
      [true, false]
    ]);
  });
});

describe('rewording every error', () => {
  it('puts an error under the same variable’s editor, or above the catalog, whatever its words', () => {
    const where = (words: Words) => {
      const model = new EnvModel();
      model.receive({
        v: 1,
        type: 'catalog',
        reply_to: null,
        language: 'en',
        frameworks: FRAMEWORKS,
        entries: [entry('E_SIZE', 'size')]
      });
      const placed: Array<[string | null, string | null]> = [];
      for (const [message, field, code] of [
        ["E_SIZE: '5XB' is not allowed: expected a size", 'E_SIZE', 'bad_value'],
        ['E_SIZ is not a known variable; did you mean E_SIZE?', 'E_SIZ', 'near_miss'],
        ['E_SIZE：不接受该取值', 'E_SIZE', 'bad_value'],
        ['unknown request type', null, 'bad_request']
      ] as const) {
        model.receive({ v: 1, type: 'error', reply_to: 'r', message: words(message), field, code });
        placed.push([model.fieldError?.name ?? null, model.error === null ? null : 'top']);
        model.receive({ v: 1, type: 'result', reply_to: 's', changes: [], status: null, restart: false });
      }
      return placed;
    };
    expect(where(reworded)).toEqual(where(asWritten));
    expect(where(asWritten)).toEqual([
      ['E_SIZE', null],
      [null, 'top'],
      ['E_SIZE', null],
      [null, 'top']
    ]);
  });
});
