/// <reference types="node" />
/**
 * The sidebar's half of the cross-front-end agreement: with MGENV_AGREEMENT_FIXTURE naming a JSON list of kernel
 * messages (a "catalog", a "state", maybe "changed" notices, as the kernel sends them), they go through the real
 * EnvModel and ConfigView, and what the panel then shows of every variable is read back from the DOM and written to
 * MGENV_AGREEMENT_OUT as {NAME: {status, badge, editor: {kind, min, max, choices, units}, greyed, reason}}. A Python
 * test compares it with what the magics and the ipywidgets show of the same kernel state. Without the variable the
 * test is skipped.
 *
 * Read back as drawn: `choices` are the select's options (without the "(not set)" option a variable that is not
 * optional gets), `units` the unit select's options, `min`/`max` the number box's attributes — for a size converted
 * back from the unit shown into counts of the kernel's `unit_bytes`, the unit the kernel states its bounds in.
 */
import { readFileSync, writeFileSync } from 'fs';

import { nullTranslator } from '@jupyterlab/translation';

import { CatalogReply, Reply } from '../src/protocol';
import { ConfigView } from '../src/sidebar/configView';
import { EnvModel } from '../src/sidebar/model';
import { INAPPLICABLE_CLASS } from '../src/sidebar/rows';
import { catalogLanguage, DOMAIN } from '../src/sidebar/text';

const FIXTURE = process.env.MGENV_AGREEMENT_FIXTURE;
const OUT = process.env.MGENV_AGREEMENT_OUT;

interface Shown {
  status: string | null;
  badge: string | null;
  editor: { kind: string | null; min: number | null; max: number | null; choices: string[]; units: string[] };
  greyed: boolean;
  reason: string | null;
}

(FIXTURE ? test : test.skip)('the sidebar shows the kernel’s statuses, editors and rules (MGENV_AGREEMENT_FIXTURE)', () => {
  const messages = JSON.parse(readFileSync(FIXTURE!, 'utf8')) as Reply[];
  const catalog = messages.find((m): m is CatalogReply => m.type === 'catalog');
  expect(catalog).toBeDefined();
  const model = new EnvModel(catalogLanguage(catalog!.language));
  const actions = {
    edit: async () => null,
    forget: () => undefined,
    reviewProfile: async () => undefined,
    restartAndApply: async () => undefined,
    refresh: () => undefined,
    loadHistory: async () => undefined
  };
  const view = new ConfigView(model, actions, nullTranslator.load(DOMAIN));
  document.body.append(view.node);
  model.setConnection({ state: 'connecting', kernel: 'fixture' });
  for (const message of messages) {
    expect(model.receive(message)).toBe(true);
  }

  const shown: Record<string, Shown> = {};
  for (const entry of model.entries) {
    const row = [...view.node.querySelectorAll<HTMLElement>('.mgenv-sb-row')].find(r => r.dataset.name === entry.name)!;
    const named = (label: string) =>
      [...row.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[aria-label]')].find(
        node => node.getAttribute('aria-label') === label
      ) ?? null;
    const input = named(entry.name);
    const unit = named(`${entry.name} unit`) as HTMLSelectElement | null;
    const badge = row.querySelector<HTMLElement>('.mgenv-sb-badge');
    const reason = row.querySelector<HTMLElement>('.mgenv-sb-applies');
    // A size's box counts the unit shown; its bounds go back into the kernel's unit.
    const scale = unit ? Number(unit.selectedOptions[0].dataset.bytes) / entry.editor.unit_bytes : 1;
    const bound = (which: 'min' | 'max') =>
      input instanceof HTMLInputElement && input.type === 'number' && input.hasAttribute(which)
        ? Number(input.getAttribute(which)) * scale
        : null;
    shown[entry.name] = {
      status: row.dataset.status ?? null,
      badge: badge && !badge.hidden ? badge.textContent : null,
      editor: {
        kind: row.querySelector<HTMLElement>('[data-editor]')?.dataset.editor ?? null,
        min: bound('min'),
        max: bound('max'),
        choices: input instanceof HTMLSelectElement ? [...input.options].map(o => o.value).filter(v => v !== '') : [],
        units: unit ? [...unit.options].map(o => o.value) : []
      },
      greyed: row.classList.contains(INAPPLICABLE_CLASS),
      reason: reason && !reason.hidden ? reason.textContent : null
    };
  }
  expect(Object.keys(shown)).toHaveLength(catalog!.entries.length);
  if (OUT) {
    writeFileSync(OUT, JSON.stringify(shown, null, 2) + '\n');
  }
});
