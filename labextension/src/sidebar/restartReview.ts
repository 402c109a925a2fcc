/**
 * What "Restart and apply" would do, read from the model: each variable of the notebook profile, the value the new
 * kernel gets (masked wherever the kernel masks it), what the running kernel holds, and whether the restart is what
 * it needs — the kernel holds another value, or the framework already read an older one. The button counts those;
 * the question (restartDialog.ts, JupyterLab's dialog) lists every variable, says where the profile is kept and
 * whether the notebook still has to be saved for it to last.
 */
import { MASK, RESTART_STATUSES, StatusCode } from '../protocol';
import { badgeClass, badgeFor } from './badges';
import { code, el, tableHead } from './dom';
import { EnvModel } from './model';
import { isSecret } from './profile';
import { Language, Translation } from './text';

/** Statuses of a value that is set but not what the framework uses: only a new process reads it again (the
 * kernel's rule, Status.needs_restart, generated into the schema). */
const READ_TOO_EARLY: ReadonlySet<StatusCode> = new Set(RESTART_STATUSES);

export interface RestartItem {
  name: string;
  /** The profile's value, as the new kernel gets it (MASK for a secret). */
  value: string;
  /** What the running kernel holds (MASK for a secret, null: not set), undefined when it has not said. */
  now: string | null | undefined;
  /** The kernel's status code for the variable now, null when it has not said. */
  status: string | null;
  /** The restart is what brings this value into effect. */
  needed: boolean;
  /** The kernel refuses this variable from a profile (code-loading): a new kernel refuses it again. */
  refused: boolean;
}

export function restartItems(model: EnvModel): RestartItem[] {
  const refused = new Set(model.profileReview.items.filter(item => item.action === 'refused').map(item => item.name));
  return Object.entries(model.profile).map(([name, value]) => {
    const info = model.variable(name);
    const secret = isSecret(name) || info?.value === MASK;
    const differs = !info || info.value !== value;
    return {
      name,
      value: secret ? MASK : value,
      now: info ? info.value : undefined,
      status: info?.status ?? null,
      needed: !refused.has(name) && (differs || READ_TOO_EARLY.has(info.status)),
      refused: refused.has(name)
    };
  });
}

/** How many variables of the profile only a restart brings into effect (the number on the button). */
export function restartCount(items: readonly RestartItem[]): number {
  return items.filter(item => item.needed).length;
}

export interface RestartQuestionArgs {
  notebook: string;
  items: readonly RestartItem[];
  /** The notebook has no unsaved changes, so the profile in its metadata is on disk. */
  saved: boolean;
}

export interface RestartAnswer {
  restart: boolean;
  /** Save the notebook before restarting (offered only when it has unsaved changes). */
  save: boolean;
}

export type RestartQuestion = (args: RestartQuestionArgs) => Promise<RestartAnswer>;

export const RESTART_CLASS = 'mgenv-restart-review';

export function restartBody({ notebook, items, saved }: RestartQuestionArgs, trans: Translation, language: Language): HTMLElement {
  const body = el('div', RESTART_CLASS);
  const intro = el('p', '');
  if (items.length) {
    const question = trans.__(
      'The kernel of {notebook} restarts: everything its cells defined is lost. Before any cell runs, the notebook ' +
        'profile sets:'
    );
    const [before, after] = question.split('{notebook}');
    const name = el('code', '');
    name.textContent = notebook;
    intro.append(before, name, after);
    body.append(intro, table(items, trans, language));
  } else {
    intro.textContent = trans.__('The notebook profile is empty: the kernel restarts and nothing is applied.');
    body.append(intro);
  }
  const where = el('p', `${RESTART_CLASS}-${saved ? 'saved' : 'unsaved'}`);
  where.textContent = saved
    ? trans.__('The profile is kept in this notebook’s metadata (metadata.mgenv_jupyter.profile) and the notebook is saved.')
    : trans.__(
        'The profile is kept in this notebook’s metadata (metadata.mgenv_jupyter.profile), and the notebook has ' +
          'unsaved changes: until it is saved, reloading the page loses the profile, and the notebook’s next kernel ' +
          'does not get it.'
      );
  body.append(where);
  return body;
}

function table(items: readonly RestartItem[], trans: Translation, language: Language): HTMLTableElement {
  const node = el('table', `${RESTART_CLASS}-table`) as HTMLTableElement;
  const caption = el('caption', `${RESTART_CLASS}-caption`);
  caption.textContent = trans.__('Restart the kernel and apply the profile?');
  const head = tableHead([trans.__('Variable'), trans.__('Value'), trans.__('Now'), trans.__('Why restart')]);
  const rows = el('tbody', '');
  for (const item of items) {
    const row = el('tr', item.needed ? `${RESTART_CLASS}-needed` : '');
    row.dataset.name = item.name;
    const name = el('th', '');
    name.setAttribute('scope', 'row');
    name.append(code(item.name));
    const value = el('td', '');
    value.append(code(item.value));
    const now = el('td', '');
    if (item.now === undefined || item.now === null) {
      now.textContent = item.now === null ? trans.__('(not set)') : '';
    } else {
      now.append(code(item.now));
    }
    const why = el('td', '');
    if (item.refused) {
      why.textContent = trans.__('never taken from a profile: a restart does not set it');
    } else if (item.status !== null && item.now !== item.value) {
      why.textContent = trans.__('the kernel holds another value');
    } else if (item.status !== null) {
      // The kernel holds this value: its status says whether the framework uses it or read an older one.
      const badge = badgeFor(item.status, language);
      const label = el('span', badgeClass(badge));
      label.textContent = badge.label;
      why.append(label);
    }
    row.append(name, value, now, why);
    rows.append(row);
  }
  node.append(caption, head, rows);
  return node;
}
