/**
 * The chart's one-line status: what the sources are doing, in words, each said once — "Simulated GPU (a100-40gb) ·
 * NVML ok" — with every source's state, quiet ones included, in the tooltip. It acts on each state's code (which
 * sources are quiet, which are ok, which node is lost); the words of a state are the kernel's (`text`, and `lead`:
 * what follows the source's name), in its language.
 */
import { SourceState, STATE_CODES } from '../protocol';
import { ENGLISH, Translation } from './text';

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
  megengine: 'MegEngine',
  paddle: 'Paddle',
  torch: 'PyTorch',
  jax: 'JAX',
  tensorflow: 'TensorFlow',
  mxnet: 'MXNet'
};

/** Sources with nothing to say while there is data: a framework not imported, the host fallback while a GPU is seen. */
const QUIET: ReadonlySet<string> = new Set([STATE_CODES.NOT_IMPORTED, STATE_CODES.HOST_IDLE]);

/**
 * With data on screen, sources with nothing to say (a framework not imported, the host fallback while a GPU is
 * seen) stay out of the line; before any data they say why there is none.
 */
export function statusLine(states: SourceState[], hasData: boolean, trans: Translation = ENGLISH): StatusLine {
  const simulation = states.find(s => s.simulated);
  const quiet = (s: SourceState) => hasData && QUIET.has(s.state.code);
  const parts = states.filter(s => s.node === null && !quiet(s)).map(s => describe(s, trans));
  const nodes = nodesPart(
    states.filter(s => s.node !== null),
    trans
  );
  if (nodes) {
    // Before the kernel's own sources: a lost node is the news, and a narrow sidebar cuts the line's end.
    parts.unshift(nodes);
  }
  const named = simulation
    ? simulation.simulation
      ? trans._p('memory chart', 'Simulated GPU (%1)', simulation.simulation)
      : trans._p('memory chart', 'Simulated GPU')
    : null;
  if (named) {
    parts.unshift(named);
  }
  if (!hasData) {
    parts.unshift(trans._p('memory chart', 'No data yet'));
  }
  return {
    text: parts.join(' · '),
    simulation: hasData ? named : null,
    title: states.map(s => describe(s, trans)).join('\n'),
    simulated: simulation !== undefined
  };
}

/**
 * A cluster's nodes in one part, each node's own state being in the legend: "3 nodes ok", "3 nodes: 2 ok, node_c
 * lost", "2 nodes: node_a starting, node_b no data for 7 s".
 */
function nodesPart(nodes: SourceState[], trans: Translation): string | null {
  if (!nodes.length) {
    return null;
  }
  const count =
    nodes.length === 1 ? trans._p('memory chart', '1 node') : trans._p('memory chart', '%1 nodes', nodes.length);
  const okWord = trans._p('memory chart', 'ok');
  const ok = nodes.filter(s => s.state.code === STATE_CODES.OK).length;
  if (ok === nodes.length) {
    return `${count} ${okWord}`;
  }
  const others = nodes
    .filter(s => s.state.code !== STATE_CODES.OK)
    .map(s => `${s.node} ${s.state.code === STATE_CODES.LOST ? trans._p('memory chart', 'lost') : s.text}`);
  return `${count}: ${[...(ok ? [`${ok} ${okWord}`] : []), ...others].join(', ')}`;
}

/** "NVML ok", "Paddle ok (holds no GPU memory yet)", "NVML error on gpu0: GPU is lost", "NVML: no NVIDIA driver"; a
 * cluster node's "node_c: lost: ConnectionError: …". */
export function describe(state: SourceState, trans: Translation = ENGLISH): string {
  if (state.node !== null) {
    return `${state.node}: ${state.text}`;
  }
  const name = state.name === 'host' ? trans._p('memory chart', 'Host') : SOURCE_NAMES[state.name] ?? state.name;
  const okWord = trans._p('memory chart', 'ok');
  if (state.state.code === STATE_CODES.OK) {
    return `${name} ${okWord}`;
  }
  if (state.state.code === STATE_CODES.HOLDS_NOTHING) {
    return `${name} ${okWord} (${state.lead ?? state.text})`;
  }
  // The kernel says what follows the source's name where its words start with the source's own ("sees no GPU").
  return state.lead !== null ? `${name} ${state.lead}` : `${name}: ${state.text}`;
}
