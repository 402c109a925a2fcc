/**
 * What the user reads before a notebook profile is applied: the notebook, then the kernel's review of its profile as
 * two tables — what would be set (variable, value, what it is now) and what the kernel refuses whatever the answer
 * (the same columns and the kernel's reason). Plain DOM with real table headers, so a screen reader reads it as
 * a table; asking the question itself is profile/dialog.ts (JupyterLab's dialog).
 */
import { ProfileItemInfo, SizeInfo } from '../../protocol';
import { code, el, tableHead } from '../../shared/dom';
import { valueText } from '../editors';
import { Translation } from '../text';

/** What the question is about. */
export interface ProfileQuestionArgs {
  notebook: string;
  items: readonly ProfileItemInfo[];
}

/** Ask the user whether to apply a notebook profile; resolves true only when they chose to apply it. */
export type ProfileQuestion = (args: ProfileQuestionArgs) => Promise<boolean>;

export const REVIEW_CLASS = 'mgenv-profile-review';

export function reviewBody({ notebook, items }: ProfileQuestionArgs, trans: Translation): HTMLElement {
  const body = el('div', REVIEW_CLASS);
  const question = trans.__(
    'The notebook {notebook} carries a profile of framework variables to set in its kernel. It came with the file, ' +
      'so apply it only if you trust where the notebook came from. Nothing has been set yet.'
  );
  const [before, after] = question.split('{notebook}');
  const intro = el('p', '');
  const name = el('code', `${REVIEW_CLASS}-notebook`);
  name.textContent = notebook;
  intro.append(before, name, after);
  body.append(intro);

  const applied = items.filter(item => item.action !== 'refused');
  const refused = items.filter(item => item.action === 'refused');
  if (applied.length) {
    body.append(heading(trans.__('Will be set')), table(applied, trans, false));
  } else {
    const none = el('p', `${REVIEW_CLASS}-nothing`);
    none.textContent = trans.__('Nothing in this profile would be set.');
    body.append(none);
  }
  if (refused.length) {
    const section = el('section', `${REVIEW_CLASS}-refused`);
    const note = el('p', '');
    note.textContent = trans.__('The kernel refuses these whatever you answer:');
    section.append(heading(trans.__('Will not be applied')), note, table(refused, trans, true));
    body.append(section);
  }
  const remember = el('p', `${REVIEW_CLASS}-remember`);
  remember.textContent = trans.__(
    'Approving is remembered on this computer for this exact profile: reopening it does not ask again, a changed ' +
      'profile does. If you don’t apply it, nothing changes and you are asked again the next time its kernel starts.'
  );
  body.append(remember);
  return body;
}

function heading(label: string): HTMLElement {
  const node = el('h3', `${REVIEW_CLASS}-heading`);
  node.textContent = label;
  return node;
}

function table(items: readonly ProfileItemInfo[], trans: Translation, refused: boolean): HTMLTableElement {
  const node = el('table', `${REVIEW_CLASS}-table`) as HTMLTableElement;
  // The caption names the table for assistive technology; the heading above says the same on screen.
  const caption = el('caption', `${REVIEW_CLASS}-caption`);
  caption.textContent = refused ? trans.__('Will not be applied') : trans.__('Will be set');
  const columns = [trans.__('Variable'), trans.__('Value'), trans.__('Now'), ...(refused ? [trans.__('Why')] : [])];
  const head = tableHead(columns);
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
      now.append(words(trans.__('already this value')));
    } else if (item.current === null) {
      now.append(words(trans.__('(not set)')));
    } else {
      now.append(valueCode(item.current, item.current_size));
    }
    const value = el('td', '');
    value.append(item.value === null ? words(trans.__('(not set)')) : valueCode(item.value, item.size));
    row.append(nameCell, value, now);
    if (refused) {
      const why = el('td', `${REVIEW_CLASS}-reason`);
      why.textContent = item.reason ?? trans.__('will not be applied');
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

/** A value as code: a size as the kernel split it (3 GiB), with what the notebook keeps (3221225472) on hover. */
function valueCode(value: string, size: SizeInfo | null): HTMLElement {
  const node = code(valueText(size, value));
  if (node.textContent !== value) {
    node.title = value;
  }
  return node;
}
