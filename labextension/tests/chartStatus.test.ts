import { SeriesInfo, SourceState } from '../src/protocol';
import { describe as describeSource, statusLine } from '../src/chart/status';
import catalog from '../src/locale/zh_CN.json';
import { ENGLISH, messagesTranslation, seriesName } from '../src/chart/text';

const state = (name: string, text: string, simulation: string | null = null): SourceState => ({
  name,
  state: text,
  text: text.replace(/^ok: /, ''), // as the kernel words it in English (memory/_state_words.py)
  simulated: simulation !== null,
  simulation,
  node: null
});

describe('the status line', () => {
  it('names the simulated GPU once, then each source that has something to say', () => {
    const states = [
      state('nvml (simulated)', 'ok', 'a100-40gb'),
      state('megengine', 'megengine is not imported'),
      state('paddle', 'ok: paddle holds no GPU memory yet'),
      state('host', 'idle: GPUs are visible (host memory is the fallback)')
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
    const line = statusLine([state('nvml', 'no NVIDIA driver (libnvidia-ml.so.1 not found)'), state('torch', 'torch is not imported')], false);
    expect(line.text).toBe('No data yet · NVML: no NVIDIA driver (libnvidia-ml.so.1 not found) · PyTorch is not imported');
    expect(line.simulated).toBe(false);
  });

  it('words each state without repeating the source', () => {
    expect(describeSource(state('nvml (simulated)', 'NVML error on gpu0: GPU is lost', 'training'))).toBe(
      'NVML error on gpu0: GPU is lost'
    );
    expect(describeSource(state('host', 'host memory unavailable: PermissionError'))).toBe(
      'Host memory unavailable: PermissionError'
    );
    expect(describeSource(state('mxnet', 'mxnet sees no GPU'))).toBe('MXNet sees no GPU');
    expect(describeSource(state('tensorflow', 'tensorflow is not imported'))).toBe('TensorFlow is not imported');
    expect(describeSource(state('custom', 'ok'))).toBe('custom ok');
  });
});

describe('the status line in Chinese', () => {
  it('takes the kernel’s words for each state and its own for the rest', () => {
    const zh = messagesTranslation(catalog); // as the inline chart on a Chinese page
    const chinese = (name: string, english: string, text: string, simulation: string | null = null): SourceState => ({
      ...state(name, english, simulation),
      text
    });
    const line = statusLine(
      [
        chinese('nvml (simulated)', 'ok', '正常', 'training'),
        chinese('paddle', 'ok: paddle holds no GPU memory yet', 'paddle 尚未占用 GPU 显存'),
        chinese('torch', 'torch is not imported', 'torch 未导入')
      ],
      true,
      zh
    );
    expect(line.text).toBe('模拟 GPU(training) · NVML 正常 · Paddle 正常 (尚未占用 GPU 显存)');
    expect(statusLine([chinese('nvml', 'no NVIDIA driver (the driver is not loaded)', '没有 NVIDIA 驱动(驱动未加载)')], false, zh).text).toBe(
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
