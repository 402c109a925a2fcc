/**
 * What the user reads before a notebook profile is applied: the notebook, then the kernel's review of its profile as
 * two tables — what would be set (variable, value, what it is now) and what the kernel refuses whatever the answer
 * (the same columns and the kernel's reason). Plain DOM with real table headers, so a screen reader reads it as
 * a table; asking the question itself is profileDialog.ts (JupyterLab's dialog).
 */
import { ProfileItemInfo } from '../protocol';
import { code, el, tableHead } from './dom';
import { TextKey, Translate } from './text';

/** What the question is about. */
export interface ProfileQuestionArgs {
  notebook: string;
  items: readonly ProfileItemInfo[];
}

/** Ask the user whether to apply a notebook profile; resolves true only when they chose to apply it. */
export type ProfileQuestion = (args: ProfileQuestionArgs) => Promise<boolean>;

export const REVIEW_CLASS = 'mgenv-profile-review';

export function reviewBody({ notebook, items }: ProfileQuestionArgs, t: Translate): HTMLElement {
  const body = el('div', REVIEW_CLASS);
  const [before, after] = t('askIntro').split('{notebook}');
  const intro = el('p', '');
  const name = el('code', `${REVIEW_CLASS}-notebook`);
  name.textContent = notebook;
  intro.append(before, name, after);
  body.append(intro);

  const applied = items.filter(item => item.action !== 'refused');
  const refused = items.filter(item => item.action === 'refused');
  if (applied.length) {
    body.append(heading(t('askWillSet')), table(applied, t, false));
  } else {
    const none = el('p', `${REVIEW_CLASS}-nothing`);
    none.textContent = t('askNothingToSet');
    body.append(none);
  }
  if (refused.length) {
    const section = el('section', `${REVIEW_CLASS}-refused`);
    const note = el('p', '');
    note.textContent = t('askRefusedNote');
    section.append(heading(t('askRefused')), note, table(refused, t, true));
    body.append(section);
  }
  const remember = el('p', `${REVIEW_CLASS}-remember`);
  remember.textContent = t('askRemember');
  body.append(remember);
  return body;
}

function heading(label: string): HTMLElement {
  const node = el('h3', `${REVIEW_CLASS}-heading`);
  node.textContent = label;
  return node;
}

function table(items: readonly ProfileItemInfo[], t: Translate, refused: boolean): HTMLTableElement {
  const node = el('table', `${REVIEW_CLASS}-table`) as HTMLTableElement;
  // The caption names the table for assistive technology; the heading above says the same on screen.
  const caption = el('caption', `${REVIEW_CLASS}-caption`);
  caption.textContent = t(refused ? 'askRefused' : 'askWillSet');
  const columns: TextKey[] = ['askVariable', 'askValue', 'askNow', ...(refused ? (['askWhy'] as const) : [])];
  const head = tableHead(columns.map(column => t(column)));
  const rows = el('tbody', '');
  for (const item of items) {
    const row = el('tr', `${REVIEW_CLASS}-${item.action}`);
    row.dataset.name = item.name;
    row.dataset.action = item.action;
    const nameCell = el('th', `${REVIEW_CLASS}-name`);
    nameCell.setAttribute('scope', 'row');
    nameCell.append(variableName(item.name));
    const now = el('td', '');
    if (item.action === 'unchanged') {
      now.append(words(t('askUnchanged')));
    } else if (item.current === null) {
      now.append(words(t('notSet')));
    } else {
      now.append(code(item.current));
    }
    const value = el('td', '');
    value.append(item.value === null ? words(t('notSet')) : code(item.value));
    row.append(nameCell, value, now);
    if (refused) {
      const why = el('td', `${REVIEW_CLASS}-reason`);
      why.textContent = item.reason ?? t('profileRefusedMark');
      row.append(why);
    }
    rows.append(row);
  }
  node.append(caption, head, rows);
  return node;
}

/** A variable's name, breakable after its underscores only (MGE_DEFAULT_ / DEVICE, never LD_PRELO / AD). */
function variableName(name: string): HTMLElement {
  const node = el('code', '');
  const parts = name.split(/(?<=_)/);
  parts.forEach((part, i) => {
    node.append(part);
    if (i < parts.length - 1) {
      node.append(document.createElement('wbr'));
    }
  });
  return node;
}

/** Short words of ours ("(not set)") that read badly broken over two lines. */
function words(label: string): HTMLElement {
  const node = el('span', `${REVIEW_CLASS}-words`);
  node.textContent = label;
  return node;
}
