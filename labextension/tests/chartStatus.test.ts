import { SeriesInfo, SourceState } from '../src/protocol';
import { describe as describeSource, statusLine } from '../src/chart/status';
import catalog from '../src/locale/zh_CN.json';
import { ENGLISH, messagesTranslation, seriesName } from '../src/chart/text';

// A source's state by its code, with the words the kernel gives it in English (memory/_state_words.py): `text`, and
// `lead` where the words start with the source's own (what follows the source's name).
const state = (
  name: string,
  code: string,
  text: string = code,
  lead: string | null = null,
  simulation: string | null = null
): SourceState => ({
  name,
  state: { code, args: {}, parts: [] },
  text,
  lead,
  simulated: simulation !== null,
  simulation,
  node: null
});

describe('the status line', () => {
  it('names the simulated GPU once, then each source that has something to say', () => {
    const states = [
      state('nvml (simulated)', 'ok', 'ok', null, 'a100-40gb'),
      state('megengine', 'not_imported', 'megengine is not imported', 'is not imported'),
      state('paddle', 'holds_nothing', 'paddle holds no GPU memory yet', 'holds no GPU memory yet'),
      state('host', 'host_idle', 'idle: GPUs are visible (host memory is the fallback)')
    ];
    const line = statusLine(states, true);
    expect(line.text).toBe('Simulated GPU (a100-40gb) · NVML ok · Paddle ok (holds no GPU memory yet)');
    expect(line.simulation).toBe('Simulated GPU (a100-40gb)');
    expect(line.text.match(/simulated/gi)).toHaveLength(1);
    // the tooltip has every source, the quiet ones too
    expect(line.title.split('\n')).toEqual([
      'NVML ok',
      'MegEngine is not imported',
      'Paddle ok (holds no GPU memory yet)',
      'Host: idle: GPUs are visible (host memory is the fallback)'
    ]);
  });

  it('says why there is no data yet, every source included', () => {
    const line = statusLine(
      [
        state('nvml', 'no_library', 'no NVIDIA driver (libnvidia-ml.so.1 not found)'),
        state('torch', 'not_imported', 'torch is not imported', 'is not imported')
      ],
      false
    );
    expect(line.text).toBe('No data yet · NVML: no NVIDIA driver (libnvidia-ml.so.1 not found) · PyTorch is not imported');
    expect(line.simulated).toBe(false);
  });

  it('words each state without repeating the source', () => {
    const lost = state('nvml (simulated)', 'nvml_device_error', 'NVML error on gpu0: GPU is lost', 'error on gpu0: GPU is lost', 'training');
    expect(describeSource(lost)).toBe(
      'NVML error on gpu0: GPU is lost'
    );
    expect(describeSource(state('host', 'host_unavailable', 'host memory unavailable: PermissionError', 'memory unavailable: PermissionError'))).toBe(
      'Host memory unavailable: PermissionError'
    );
    expect(describeSource(state('mxnet', 'sees_no_gpu', 'mxnet sees no GPU', 'sees no GPU'))).toBe('MXNet sees no GPU');
    expect(describeSource(state('tensorflow', 'not_imported', 'tensorflow is not imported', 'is not imported'))).toBe(
      'TensorFlow is not imported'
    );
    expect(describeSource(state('custom', 'ok'))).toBe('custom ok');
  });
});

describe('the status line in Chinese', () => {
  it('takes the kernel’s words for each state and its own for the rest', () => {
    const zh = messagesTranslation(catalog); // as the inline chart on a Chinese page
    const chinese = (name: string, code: string, text: string, lead: string | null = null, simulation: string | null = null) =>
      state(name, code, text, lead, simulation);
    const line = statusLine(
      [
        chinese('nvml (simulated)', 'ok', '正常', null, 'training'),
        chinese('paddle', 'holds_nothing', 'paddle 尚未占用 GPU 显存', '尚未占用 GPU 显存'),
        chinese('torch', 'not_imported', 'torch 未导入', '未导入')
      ],
      true,
      zh
    );
    expect(line.text).toBe('模拟 GPU(training) · NVML 正常 · Paddle 正常 (尚未占用 GPU 显存)');
    expect(statusLine([chinese('nvml', 'driver_not_loaded', '没有 NVIDIA 驱动(驱动未加载)')], false, zh).text).toBe(
      '尚无数据 · NVML: 没有 NVIDIA 驱动(驱动未加载)'
    );
  });

  it('names series in the chart’s words from their fields, device and framework names as they are', () => {
    const zh = messagesTranslation(catalog); // as the inline chart on a Chinese page
    const field = (device: string, quantity: string, more: Partial<SeriesInfo> = {}): SeriesInfo => ({
      key: 'not read', device, framework: null, quantity, source: 'nvml', simulated: false, node: null, ...more
    });
    expect(seriesName(field('host', 'used'), zh)).toBe('主机 已用');
    expect(seriesName(field('gpu0', 'process', { simulated: true }), zh)).toBe('gpu0 (模拟) 进程');
    expect(seriesName(field('gpu0', 'allocated', { framework: 'megengine' }), zh)).toBe('megengine gpu0 已分配');
    expect(seriesName(field('gpu0', 'process', { simulated: true }), ENGLISH)).toBe('gpu0 (simulated) process');
    expect(seriesName(field('gpu1', 'process', { node: 'node_b' }), ENGLISH)).toBe('node_b gpu1 process');
    // where the legend says the device, the simulation or the node once, a row leaves them out
    const torch = field('gpu0', 'reserved', { framework: 'torch', simulated: true, node: 'node_b' });
    expect(seriesName(torch, ENGLISH, { device: false, simulated: false, node: false })).toBe('torch reserved');
    // a key that says something else is never read: the fields name the series
    expect(seriesName({ ...field('gpu0', 'used'), key: 'host peak' } as SeriesInfo, ENGLISH)).toBe('gpu0 used');
  });
});
