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
import type { TranslationBundle } from '@jupyterlab/translation';

export type ChartLanguage = 'en' | 'zh';

/** What the chart and the sidebar need of a JupyterLab TranslationBundle. */
export type Translation = Pick<TranslationBundle, '__' | '_p'>;

/** A catalog's translations: context ("" for none) → msgid → translated text. */
export type Messages = Readonly<Record<string, Readonly<Record<string, string>>>>;

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

/** The series' last word, the quantity, in the chart's words. */
const QUANTITIES: Record<string, (trans: Translation) => string> = {
  used: trans => trans._p('memory chart', 'used'),
  total: trans => trans._p('memory chart', 'total'),
  process: trans => trans._p('memory chart', 'process'),
  allocated: trans => trans._p('memory chart', 'allocated'),
  reserved: trans => trans._p('memory chart', 'reserved'),
  peak: trans => trans._p('memory chart', 'peak')
};

/**
 * A series' name in the chart's words: "gpu0 (simulated) process" → "gpu0 (模拟) 进程", "host used" → "主机 已用".
 * Device and framework names stay; only the words "host", "(simulated)" and the last word, the quantity, are ours.
 */
export function seriesName(name: string, trans: Translation): string {
  const words = name.split(' ');
  const quantity = words[words.length - 1];
  const last = words.length > 1 && Object.prototype.hasOwnProperty.call(QUANTITIES, quantity) ? QUANTITIES[quantity] : undefined;
  if (last) {
    words[words.length - 1] = last(trans);
  }
  return words
    .map(word =>
      word === 'host'
        ? trans._p('memory chart', 'host')
        : word === '(simulated)'
          ? trans._p('memory chart', '(simulated)')
          : word
    )
    .join(' ');
}

function fill(template: string, args: unknown[]): string {
  return template.replace(/%(\d)/g, (match, n: string) => (args[Number(n) - 1] !== undefined ? String(args[Number(n) - 1]) : match));
}
