/**
 * The chart's one-line status: what the sources are doing, in words, each said once — "Simulated GPU (a100-40gb) ·
 * NVML ok" — with every source's state, quiet ones included, in the tooltip.
 */
import { SourceState } from '../protocol';

export interface StatusLine {
  /** The line shown (in a narrow sidebar it wraps to a second line, no more; `title` has everything). */
  text: string;
  /** Its first part, "Simulated GPU (a100-40gb)", when the data is simulated (shown in the warning colour). */
  simulation: string | null;
  /** One source a line, for the tooltip. */
  title: string;
  simulated: boolean;
}

/** How the status line names each source the kernel has; an unknown one keeps its own name. */
const SOURCE_NAMES: Record<string, string> = {
  nvml: 'NVML',
  'nvml (simulated)': 'NVML',
  host: 'Host',
  megengine: 'MegEngine',
  paddle: 'Paddle',
  torch: 'PyTorch',
  jax: 'JAX',
  tensorflow: 'TensorFlow',
  mxnet: 'MXNet'
};

/**
 * With data on screen, sources with nothing to say (a framework not imported, the host fallback while a GPU is
 * seen) stay out of the line; before any data they say why there is none.
 */
export function statusLine(states: SourceState[], hasData: boolean): StatusLine {
  const simulation = states.find(s => s.simulated);
  const quiet = (s: SourceState) => hasData && /not imported|^idle/.test(s.state);
  const parts = states.filter(s => !quiet(s)).map(describe);
  const named = simulation ? (simulation.simulation ? `Simulated GPU (${simulation.simulation})` : 'Simulated GPU') : null;
  if (named) {
    parts.unshift(named);
  }
  if (!hasData) {
    parts.unshift('No data yet');
  }
  return {
    text: parts.join(' · '),
    simulation: hasData ? named : null,
    title: states.map(describe).join('\n'),
    simulated: simulation !== undefined
  };
}

/** "NVML ok", "Paddle ok (holds no GPU memory yet)", "NVML error on gpu0: GPU is lost", "NVML: no NVIDIA driver". */
export function describe(state: SourceState): string {
  const name = SOURCE_NAMES[state.name] ?? state.name;
  const text = state.state;
  if (text === 'ok') {
    return `${name} ok`;
  }
  const ok = /^ok: (.*)$/.exec(text);
  if (ok) {
    return `${name} ok (${ok[1].replace(new RegExp(`^${escape(sourceWord(state.name))} `, 'i'), '')})`;
  }
  const own = sourceWord(state.name);
  if (text.toLowerCase().startsWith(own.toLowerCase() + ' ')) {
    return name + text.slice(own.length);
  }
  return `${name}: ${text}`;
}

/** The word a source's own messages start with: "nvml (simulated)" writes "NVML error…", "paddle" "paddle sees…". */
function sourceWord(name: string): string {
  return name.split(' ')[0];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
