import { nullTranslator } from '@jupyterlab/translation';

import { cullMessage, readCullEvent } from '../src/culling/notices';
import { CULLING_EVENTS, CullEvent } from '../src/protocol';
import { cullNote } from '../src/sidebar/gpus/layout';
import { DOMAIN } from '../src/sidebar/text';
import { chineseTranslation } from './translation';

const trans = nullTranslator.load(DOMAIN);
const GiB = 1024 ** 3;
const EVENT: CullEvent = {
  action: 'notice',
  kernel_id: 'k-big',
  notebooks: ['train/big.ipynb'],
  held_bytes: 30 * GiB,
  idle_seconds: 7200,
  cull_at: '2026-12-02T03:05:00+00:00',
  idle_after: 3600
};

describe('GPU-aware culling on the event bus', () => {
  it('reads an event the server sends and nothing else', () => {
    expect(readCullEvent({ schema_id: CULLING_EVENTS, ...EVENT })).toEqual(EVENT);
    expect(readCullEvent({ schema_id: 'https://events.jupyter.org/jupyter_server/kernel_actions/v1', ...EVENT })).toBeNull();
    for (const broken of [
      { action: 'evicted' },
      { held_bytes: '30 GiB' },
      { held_bytes: -1 },
      { notebooks: 'a.ipynb' },
      { notebooks: [1] },
      { cull_at: 'soon' },
      { kernel_id: 'k'.repeat(5000) }
    ]) {
      expect(readCullEvent({ schema_id: CULLING_EVENTS, ...EVENT, ...broken } as any)).toBeNull();
    }
  });

  it('says what it held, how long it was idle, when it goes and how to keep it, within what a toast shows', () => {
    const notice = cullMessage(EVENT, 'projects/team/train/big.ipynb', trans);
    expect(notice).toContain('big.ipynb: its kernel holds 30 GiB of GPU memory, idle 2 h.');
    expect(notice).toContain(new Date(Date.parse(EVENT.cull_at)).toLocaleTimeString());
    expect(notice).toContain('unless a cell runs');
    const culled = cullMessage({ ...EVENT, action: 'culled', idle_seconds: 86399 }, 'a/big.ipynb', trans);
    expect(culled).toContain('(idle 23 h, held 30 GiB of GPU memory; limit 1 h)');
    // JupyterLab's toasts cut a message after 140 characters: the longest figures still fit.
    for (const action of ['notice', 'kept', 'culled', 'failed'] as const) {
      const longest = { ...EVENT, action, held_bytes: 1023.5 * GiB, idle_seconds: 86399, idle_after: 86399 };
      const text = cullMessage(longest, 'experiment-42.ipynb', trans);
      expect(text.length <= 140 ? '' : text).toBe(''); // the text itself where it is too long
    }
  });

  it('speaks Chinese with a Chinese JupyterLab', async () => {
    const zh = await chineseTranslation();
    expect(cullMessage(EVENT, 'big.ipynb', zh)).toContain('big.ipynb:内核占用 30 GiB GPU 显存,已空闲');
    expect(cullMessage({ ...EVENT, action: 'culled' }, 'big.ipynb', zh)).toContain('服务器于');
  });

  it('shows beside a kernel of the GPU view when it will be shut down', () => {
    const kernel = {
      id: 'k', name: 'python3', notebooks: ['a.ipynb'], execution_state: 'idle', last_activity: null,
      idle_seconds: 3700, idle_since: 'cell' as const, running_cell: false, running_seconds: null, pid_known: true,
      cull_at: EVENT.cull_at
    };
    expect(cullNote(kernel, trans)).toBe(
      ' · shut down at ' + new Date(Date.parse(EVENT.cull_at)).toLocaleTimeString() + ' unless a cell runs'
    );
    expect(cullNote({ ...kernel, cull_at: null }, trans)).toBe('');
  });
});
