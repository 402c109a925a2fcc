/**
 * How the chart's own words reach the user's language (the kernel sends the rest — overlay labels and the sources'
 * states — already in its language). Every word is a literal gettext call at its place in the code,
 * `trans._p('memory chart', 'now')`, so JupyterLab's string extraction (jupyterlab-translate) finds it; the context
 * "memory chart" keeps the chart's "ok" (a source's state) apart from the sidebar's "ok" (a verified variable).
 * In the sidebar `trans` is JupyterLab's translation bundle; the inline chart, an anywidget module outside
 * JupyterLab's plugin system, gets `messagesTranslation` over the Chinese catalog the package ships
 * (labextension/src/locale/zh_CN.json) when the page's language (`<html lang>`) is Chinese — the same translation.
 *
 * `%1`, `%2` are gettext's placeholders.
 */
import type { SeriesInfo } from '../protocol';
import type { Language, Messages, Translation } from '../shared/translation';

export type { Messages, Translation };

export type ChartLanguage = Language;

/** A translation from `messages`, with gettext's %1, %2 filled in; a msgid it lacks stays English. */
export function messagesTranslation(messages: Messages): Translation {
  return {
    __: (msgid: string, ...args: unknown[]) => fill(messages['']?.[msgid] ?? msgid, args),
    _p: (context: string, msgid: string, ...args: unknown[]) => fill(messages[context]?.[msgid] ?? msgid, args)
  };
}

export const ENGLISH: Translation = messagesTranslation({});

/** The language JupyterLab set for the page ("zh-CN" when its language pack is chosen; "en" otherwise). */
export function pageLanguage(): ChartLanguage {
  const lang = typeof document !== 'undefined' ? document.documentElement.lang : '';
  return (lang ?? '').toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

/** A series' quantity in the chart's words; one the chart does not know stays as the kernel named it. */
const QUANTITIES: Record<string, (trans: Translation) => string> = {
  used: trans => trans._p('memory chart', 'used'),
  total: trans => trans._p('memory chart', 'total'),
  process: trans => trans._p('memory chart', 'process'),
  allocated: trans => trans._p('memory chart', 'allocated'),
  reserved: trans => trans._p('memory chart', 'reserved'),
  peak: trans => trans._p('memory chart', 'peak')
};

/** The fields of a series that name it (protocol's SeriesInfo). */
export type SeriesNaming = Pick<SeriesInfo, 'device' | 'framework' | 'quantity' | 'simulated' | 'node'>;

export interface NamingOptions {
  /** Name the device ("gpu0 process"); false where the chart names the one device once for all its lines. */
  device?: boolean;
  /** Say "(simulated)" after the device; false where the chart says it once (the legend's heading). */
  simulated?: boolean;
  /** Name the cluster node first; false under the node's own heading. */
  node?: boolean;
}

/**
 * A series' name in the chart's words, written from its fields (never from its key): "torch gpu0 allocated" is
 * "torch gpu0 已分配", "gpu0 (simulated) process" "gpu0 (模拟) 进程", "host used" "主机 已用". Device and framework
 * names stay as they are.
 */
export function seriesName(series: SeriesNaming, trans: Translation, options: NamingOptions = {}): string {
  const { device = true, simulated = true, node = true } = options;
  const quantity = Object.prototype.hasOwnProperty.call(QUANTITIES, series.quantity)
    ? QUANTITIES[series.quantity](trans)
    : series.quantity;
  return [
    node ? series.node : null,
    series.framework,
    device ? deviceName(series, trans, simulated) : null,
    quantity
  ]
    .filter((part): part is string => !!part)
    .join(' ');
}

/** A device in the chart's words: "gpu0", "gpu0 (simulated)" ("gpu0 (模拟)"), "host" ("主机"). */
export function deviceName(series: Pick<SeriesInfo, 'device' | 'simulated'>, trans: Translation, simulated = true): string {
  const device = series.device === 'host' ? trans._p('memory chart', 'host') : series.device;
  return simulated && series.simulated ? `${device} ${trans._p('memory chart', '(simulated)')}` : device;
}

function fill(template: string, args: unknown[]): string {
  return template.replace(/%(\d)/g, (match, n: string) => (args[Number(n) - 1] !== undefined ? String(args[Number(n) - 1]) : match));
}
