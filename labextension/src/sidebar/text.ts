/**
 * How the sidebar speaks the user's language, the JupyterLab way: every word the panel shows is a literal gettext
 * call at its place in the code — `trans.__('Restart and apply')`, `trans.__('imported: %1', names)` — on the
 * TranslationBundle of DOMAIN, so JupyterLab's string extraction (jupyterlab-translate) finds each msgid. The Chinese
 * translations live in one catalog keyed by those msgids, src/locale/zh_CN.json; the build writes it as the gettext
 * catalog jupyterlab_server serves (scripts/locale.mjs → mgenv_jupyter/locale/zh_CN/LC_MESSAGES/mgenv_jupyter.json,
 * found through the "jupyterlab.locale" entry point). tests/frontend/test_translations.py runs the
 * real extractor and checks the catalog against it. Descriptions of variables and status labels are not here: the
 * kernel sends the former in the catalog language, the schema's STATUS_LABELS holds the latter.
 *
 * `%1`, `%2` are gettext's placeholders: a text that has them is always translated with its arguments.
 */
import type { Language, Messages } from '../shared/translation';

export type { Language, Translation } from '../shared/translation';

/** The gettext domain of the sidebar's texts (the Python package's name, as JupyterLab's locale lookup wants it). */
export const DOMAIN = 'mgenv_jupyter';

/** JupyterLab's UI language ("zh_CN", "zh-TW", "en", "default") → the catalog language. */
export function catalogLanguage(languageCode: string | undefined | null): Language {
  return (languageCode ?? '').toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

/** The gettext catalog of a language, in the Jed format JupyterLab's language packs ship (LC_MESSAGES/*.json). */
export interface JedCatalog {
  '': { domain: string; language: string; plural_forms: string; version: string };
  [msgid: string]: string[] | JedCatalog[''];
}

/** The Jed catalog of the Chinese `messages`: a msgid with a context is keyed "context\u0004msgid", as gettext does. */
export function jedCatalog(messages: Messages, version: string): JedCatalog {
  const catalog: JedCatalog = {
    '': { domain: DOMAIN, language: 'zh-CN', plural_forms: 'nplurals=1; plural=0;', version }
  };
  for (const [context, texts] of Object.entries(messages)) {
    for (const [msgid, translated] of Object.entries(texts)) {
      catalog[context ? `${context}\u0004${msgid}` : msgid] = [translated];
    }
  }
  return catalog;
}
