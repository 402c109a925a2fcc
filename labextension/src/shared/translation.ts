/**
 * The words' types every feature shares: what a feature needs of a JupyterLab TranslationBundle, a catalog's
 * translations, and the catalog languages. The chart (an anywidget bundle) takes them too, so nothing here loads
 * JupyterLab at run time.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

/** What the chart, the report and the sidebar need of a JupyterLab TranslationBundle. */
export type Translation = Pick<TranslationBundle, '__' | '_p'>;

/** A catalog's translations: context ("" for none) → msgid → translated text. */
export type Messages = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** The languages of the kernel's catalog and of our words. */
export type Language = 'en' | 'zh';
