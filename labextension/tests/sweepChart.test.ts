import { SweepChart, labelRoom } from '../src/sweep/sweepChart';
import { SweepFigure, SweepPointInfo } from '../src/protocol';

function point(index: number, outcome: SweepPointInfo['outcome'], note = ''): SweepPointInfo {
  const failed = !['ok', 'not_run'].includes(outcome);
  return {
    index,
    label: String(index + 1),
    outcome,
    outcome_label: { ok: 'ok', timeout: 'timed out', error: 'error', not_run: 'not run' }[outcome as string] ?? outcome,
    seconds: outcome === 'ok' ? 0.5 : null,
    peak: outcome === 'ok' ? 2 ** 20 : null,
    best: false,
    failed,
    note,
    gpu: null
  };
}

function figure(points: SweepPointInfo[]): SweepFigure {
  return {
    title: 'Sweep of N',
    axis: 'N',
    time_title: 'Time of the cell',
    peak_title: 'Peak host memory',
    timeline_title: 'Host memory while the cell ran',
    seconds_label: 'seconds',
    bytes_label: 'memory',
    elapsed_label: 'seconds since the cell started',
    peak_kind: 'host',
    budget: 22 * 2 ** 30,
    budget_label: 'budget 21.3 GiB',
    simulated: false,
    points,
    timelines: [],
    status: 'Interrupted: 2 of 4 points finished; the rest did not run. Recommended: N=1',
    running: false
  };
}

describe('the sweep chart', () => {
  it('lists each point that failed or did not finish under the panels, with its reason', () => {
    const root = document.createElement('div');
    const chart = new SweepChart(root);
    chart.render(
      figure([
        point(0, 'ok'),
        point(1, 'error', 'ValueError: the data loader is empty, in the measured cell'),
        point(2, 'timeout', 'past the 6 s limit, in the measured cell'),
        point(3, 'not_run')
      ])
    );
    const items = Array.from(root.querySelectorAll('.mgenv-sweep-failure')).map(li => li.textContent);
    expect(items).toEqual([
      '✕ 2: error — ValueError: the data loader is empty, in the measured cell',
      '✕ 3: timed out — past the 6 s limit, in the measured cell',
      '✕ 4: not run'
    ]);
    chart.render(figure([point(0, 'ok')]));
    expect(root.querySelectorAll('.mgenv-sweep-failure')).toHaveLength(0);
    chart.destroy();
  });

  it('labels the setting axis so that no two labels overlap, however many points', () => {
    for (const [count, slot] of [
      [6, 40],
      [64, 4],
      [256, 1],
      [3, 200]
    ]) {
      const [every, room] = labelRoom(count, slot);
      // shown labels are `every` slots apart and at most `room` characters: they fit between their neighbours
      expect(room * 6.2).toBeLessThanOrEqual(Math.max(every * slot, 4 * 6.2));
      expect(every).toBeGreaterThanOrEqual(1);
    }
    expect(labelRoom(6, 40)).toEqual([1, 5]);
  });
});
