/**
 * What "Restart and apply" would do, read from the model: each variable the new kernel gets before any cell runs —
 * the notebook profile's, and the values this session set (in a cell, a widget, through the API) that a framework
 * reads at start, which the kernel marks as a restart's to carry (`VariableInfo.carry`, runtime/_carry.py) — with the
 * value it gets (masked wherever the kernel masks it), what the running kernel holds, and whether the restart is what
 * it needs. The button counts those; the question (profile/restartDialog.ts, JupyterLab's dialog) lists every variable, offers
 * to keep each carried value in the notebook, says where the profile is kept and whether the notebook still has to be
 * saved for it to last.
 */
import { CarryCode, MASK, RESTART_STATUSES, StatusCode } from '../../protocol';
import { badgeClass, badgeFor } from '../../shared/badges';
import { code, el, tableHead } from '../../shared/dom';
import { valueText } from '../editors';
import { EnvModel } from '../model';
import { isSecret } from './profile';
import { Language, Translation } from '../text';

/** Statuses of a value that is set but not what the framework uses: only a new process reads it again (the
 * kernel's rule, Status.needs_restart, generated into the schema). */
const READ_TOO_EARLY: ReadonlySet<StatusCode> = new Set(RESTART_STATUSES);

export interface RestartItem {
  name: string;
  /** The value the new kernel gets, as the kernel shows it (MASK for a secret). */
  value: string;
  /** What the running kernel holds (MASK for a secret, null: not set), undefined when it has not said. */
  now: string | null | undefined;
  /** The kernel's status code for the variable now, null when it has not said. */
  status: string | null;
  /** The restart is what brings this value into effect. */
  needed: boolean;
  /** The new kernel will not take it: a profile's variable the kernel refuses, a value a restart cannot carry. */
  refused: boolean;
  /** Where the value comes from: the notebook profile, or this kernel's session, carried over by the restart. */
  origin: 'profile' | 'session';
  /** For a value of the session: the kernel's word on carrying it ("carry", or why not). */
  carry: CarryCode | null;
  /** For a value of the session: the profile's own value for the same variable (null: the profile has none). */
  profiled: string | null;
  /** `value`, `now` and `profiled` as the sidebar shows values (a size in its unit: "3 GiB"). */
  shown: { value: string; now: string | null | undefined; profiled: string | null };
}

export function restartItems(model: EnvModel): RestartItem[] {
  const refused = new Set(model.profileReview.items.filter(item => item.action === 'refused').map(item => item.name));
  const profile = model.profile;
  const carried = Object.entries(model.variables).filter(
    ([name, info]) => info.carry !== null && info.value !== null && profile[name] !== info.value
  );
  const fromSession = new Set(carried.map(([name]) => name));
  const items: RestartItem[] = Object.entries(profile)
    .filter(([name]) => !fromSession.has(name)) // the session's newer value stands in for the profile's
    .map(([name, value]) => {
      const info = model.variable(name);
      const secret = isSecret(name) || info?.value === MASK;
      const differs = !info || info.value !== value;
      const item: RestartItem = {
        name,
        value: secret ? MASK : value,
        now: info ? info.value : undefined,
        status: info?.status ?? null,
        needed: !refused.has(name) && (differs || READ_TOO_EARLY.has(info.status)),
        refused: refused.has(name),
        origin: 'profile',
        carry: null,
        profiled: null,
        shown: { value: '', now: null, profiled: null }
      };
      return shownIn(model, item);
    });
  for (const [name, info] of carried) {
    const cannot = info.carry !== 'carry';
    items.push(shownIn(model, {
      name,
      value: info.value ?? '',
      now: info.value,
      status: info.status,
      needed: !cannot && READ_TOO_EARLY.has(info.status),
      refused: cannot,
      origin: 'session',
      carry: info.carry,
      profiled: profile[name] ?? null,
      shown: { value: '', now: null, profiled: null }
    }));
  }
  return items;
}

function shownIn(model: EnvModel, item: RestartItem): RestartItem {
  const text = (value: string | null | undefined) =>
    typeof value === 'string' ? valueText(model.sizeOf(item.name, value), value) : value;
  return { ...item, shown: { value: text(item.value) ?? '', now: text(item.now), profiled: text(item.profiled) ?? null } };
}

/** How many variables only a restart brings into effect (the number on the button). */
export function restartCount(items: readonly RestartItem[]): number {
  return items.filter(item => item.needed).length;
}

/** The session's values the restart carries into the new kernel (sent to it before any cell runs). */
export function carriedValues(items: readonly RestartItem[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const item of items) {
    if (item.origin === 'session' && !item.refused) {
      values[item.name] = item.value;
    }
  }
  return values;
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
  /** The carried variables the user keeps in the notebook profile, for its next kernels too. */
  keep: string[];
}

export type RestartQuestion = (args: RestartQuestionArgs) => Promise<RestartAnswer>;

export const RESTART_CLASS = 'mgenv-restart-review';
/** The checkbox of a carried variable: ticked, the notebook profile keeps its value (data-keep holds the name). */
export const KEEP_CLASS = `${RESTART_CLASS}-keep`;

/** The names whose "keep in the notebook" box is ticked in a body made by `restartBody`. */
export function keptNames(body: HTMLElement): string[] {
  return [...body.querySelectorAll<HTMLInputElement>(`input.${KEEP_CLASS}`)]
    .filter(box => box.checked)
    .map(box => box.dataset.keep ?? '');
}

export function restartBody({ notebook, items, saved }: RestartQuestionArgs, trans: Translation, language: Language): HTMLElement {
  const body = el('div', RESTART_CLASS);
  const intro = el('p', '');
  if (items.length) {
    const question = trans.__(
      'The kernel of {notebook} restarts: everything its cells defined is lost. Before any cell runs, the new kernel ' +
        'gets:'
    );
    const [before, after] = question.split('{notebook}');
    const name = el('code', '');
    name.textContent = notebook;
    intro.append(before, name, after);
    body.append(intro, table(items, trans, language));
    if (items.some(item => item.origin === 'session' && !item.refused)) {
      const carried = el('p', `${RESTART_CLASS}-carried`);
      carried.textContent = trans.__(
        'Values this kernel’s cells, widgets or code set, which a framework reads at start, are carried over this ' +
          'once; ticked, the notebook profile keeps them for the notebook’s next kernels too.'
      );
      body.append(carried);
    }
  } else {
    intro.textContent = trans.__(
      'The notebook profile is empty and this kernel set nothing a framework reads at start: the kernel restarts ' +
        'and nothing is applied.'
    );
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
  caption.textContent = trans.__('Restart the kernel and apply these values?');
  const head = tableHead([trans.__('Variable'), trans.__('Value'), trans.__('Now'), trans.__('Why restart'),
    trans.__('In the notebook')]);
  const rows = el('tbody', '');
  for (const item of items) {
    const row = el('tr', item.needed ? `${RESTART_CLASS}-needed` : '');
    row.dataset.name = item.name;
    row.dataset.origin = item.origin;
    const name = el('th', '');
    name.setAttribute('scope', 'row');
    name.append(code(item.name));
    const value = el('td', '');
    value.append(code(item.shown.value));
    const now = el('td', '');
    if (item.shown.now === undefined || item.shown.now === null) {
      now.textContent = item.shown.now === null ? trans.__('(not set)') : '';
    } else {
      now.append(code(item.shown.now));
    }
    row.append(name, value, now, why(item, trans, language), kept(item, trans));
    rows.append(row);
  }
  node.append(caption, head, rows);
  return node;
}

function why(item: RestartItem, trans: Translation, language: Language): HTMLElement {
  const cell = el('td', `${RESTART_CLASS}-why`);
  if (item.carry === 'secret') {
    cell.textContent = trans.__('a secret never leaves the kernel: set it again after the restart');
  } else if (item.carry === 'loads_code') {
    cell.textContent = trans.__('it can load code, so a restart never carries it: set it again after the restart');
  } else if (item.refused) {
    cell.textContent = trans.__('never taken from a profile: a restart does not set it');
  } else if (item.origin === 'profile' && item.status !== null && item.now !== item.value) {
    cell.textContent = trans.__('the kernel holds another value');
  } else if (item.status !== null) {
    // The kernel holds this value: its status says whether the framework uses it or read an older one.
    const badge = badgeFor(item.status, language);
    const label = el('span', badgeClass(badge));
    label.textContent = badge.label;
    cell.append(label);
  }
  return cell;
}

/** The profile's own variables are in the notebook; a carried one can be kept there, ticked unless the user says no. */
function kept(item: RestartItem, trans: Translation): HTMLElement {
  const cell = el('td', `${RESTART_CLASS}-kept`);
  if (item.origin === 'profile') {
    cell.textContent = item.refused ? '' : trans.__('kept');
    return cell;
  }
  if (item.refused) {
    return cell;
  }
  const label = el('label', '');
  const box = el('input', KEEP_CLASS) as HTMLInputElement;
  box.type = 'checkbox';
  box.checked = true;
  box.dataset.keep = item.name;
  box.setAttribute('aria-label', trans.__('Keep %1 in the notebook', item.name));
  label.append(box, ` ${trans.__('keep')}`);
  cell.append(label);
  if (item.profiled !== null) {
    const replaced = el('div', `${RESTART_CLASS}-replaces`);
    replaced.textContent = trans.__('instead of %1', item.shown.profiled ?? item.profiled);
    cell.append(replaced);
  }
  return cell;
}
