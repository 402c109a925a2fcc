/**
 * A status code (from "state", "changed" and every change's outcome) → what the sidebar shows: the label from the
 * schema's one bilingual table (STATUS_LABELS, the same words the magics and the widgets use) and the code itself,
 * which names the badge's CSS modifier (mgenv-sb-badge-<code>). The kernel decides the status; nothing is derived here.
 */
import { STATUS_LABELS, StatusCode } from '../protocol';
import { Language } from './translation';

export interface Badge {
  code: string;
  label: string;
}

/** A code this front end does not know yet (a newer kernel) is shown as it came, on a neutral badge. */
export function badgeFor(code: string, language: Language = 'en'): Badge {
  const labels = Object.prototype.hasOwnProperty.call(STATUS_LABELS, code) ? STATUS_LABELS[code as StatusCode] : null;
  return { code, label: labels ? labels[language] : code };
}

/** The CSS class of a badge: the code where it is one of ours, "other" for anything else. */
export function badgeClass(badge: Badge): string {
  const known = Object.prototype.hasOwnProperty.call(STATUS_LABELS, badge.code);
  return `mgenv-sb-badge mgenv-sb-badge-${known ? badge.code : 'other'}`;
}
