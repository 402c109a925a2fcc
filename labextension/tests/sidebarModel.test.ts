import { badgeClass, badgeFor } from '../src/shared/badges';
import { EnvModel, HISTORY_LIMIT, ModelChange } from '../src/sidebar/model';
import { MetadataHost, readProfile, updateProfile } from '../src/sidebar/profile/profile';
import { catalogLanguage } from '../src/sidebar/text';
import { ChangeInfo, ProfileItemInfo, Reply, STATUS_LABELS, StatusCode } from '../src/protocol';
import { entry, FRAMEWORKS, variable } from './fakes';

const catalog: Reply = {
  v: 1,
  type: 'catalog',
  reply_to: 'h1',
  language: 'en',
  entries: [
    entry('MGB_ENABLE_DTR', 'switch', { category: 'DTR' }),
    entry('MEGENGINE_DTR_EVICTION_THRESHOLD', 'size', { category: 'DTR', description: 'Evict tensors above this' }),
    entry('MGB_CUDA_RESERVE_MEMORY', 'presence', { category: 'Memory' }),
    entry('FLAGS_allocator_strategy', 'choice', { framework: 'paddle', category: 'Memory', description: 'auto_growth or naive_best_fit' })
  ],
  frameworks: FRAMEWORKS
};

function change(name: string, value: string | null, outcome: StatusCode, time = 1): ChangeInfo {
  return {
    seq: time, time, name, old: null, new: value, source: 'magic', outcome, message: `${name} ${outcome}`, effective: null,
    secret: false, shown_old: null, shown_new: null
  };
}

describe('EnvModel', () => {
  it('folds catalog → state → changed into variables and history', () => {
    const model = new EnvModel('en');
    const seen: ModelChange[] = [];
    model.changed.connect((_, c) => seen.push(c));
    model.setConnection({ state: 'connecting' });

    expect(model.receive(catalog)).toBe(true);
    expect(model.entries.map(e => e.name)).toHaveLength(4);
    expect(model.connection.state).toBe('ready');

    model.receive({
      v: 1,
      type: 'state',
      reply_to: 'h1',
      variables: {
        MGB_ENABLE_DTR: variable(null, 'pending_import'),
        MEGENGINE_DTR_EVICTION_THRESHOLD: variable(null, 'pending_import')
      },
      history: [change('MGB_ENABLE_DTR', '1', 'pending_import')],
      history_total: 1, last_report: null,
      kernel: { python: '/usr/bin/python3', version: '3.11.7', imported: [] }
    });
    expect(model.variable('MGB_ENABLE_DTR')?.status).toBe('pending_import');
    expect(model.frameworkLabel('paddle')).toBe('PaddlePaddle');
    expect(model.frameworkLabel('jax')).toBe('jax'); // a framework the kernel did not name
    expect(model.history).toHaveLength(1);
    expect(model.kernel?.version).toBe('3.11.7');

    seen.length = 0;
    model.receive({
      v: 1,
      type: 'changed',
      changes: [change('MEGENGINE_DTR_EVICTION_THRESHOLD', '5368709120', 'already_read', 2)],
      variables: { MEGENGINE_DTR_EVICTION_THRESHOLD: variable('5368709120', 'already_read') }
    });
    expect(model.variable('MEGENGINE_DTR_EVICTION_THRESHOLD')?.value).toBe('5368709120');
    expect(model.variable('MGB_ENABLE_DTR')?.status).toBe('pending_import'); // untouched by a partial notice
    expect(model.history.map(c => c.name)).toEqual(['MGB_ENABLE_DTR', 'MEGENGINE_DTR_EVICTION_THRESHOLD']);
    expect(model.badge('MEGENGINE_DTR_EVICTION_THRESHOLD')).toEqual({ code: 'already_read', label: 'already read, restart needed' });
    expect(seen).toEqual([{ kind: 'variables', names: ['MEGENGINE_DTR_EVICTION_THRESHOLD'] }, { kind: 'history' }]);
  });

  it('keeps the history bounded', () => {
    const model = new EnvModel();
    const changes = Array.from({ length: HISTORY_LIMIT + 10 }, (_, i) => change('X', String(i), 'effective', i + 1));
    model.receive({ v: 1, type: 'changed', changes, variables: {} });
    expect(model.history).toHaveLength(HISTORY_LIMIT);
    expect(model.history[HISTORY_LIMIT - 1].new).toBe(String(HISTORY_LIMIT + 9));
  });

  it('merges every window of the history by change number, keeps older ones it asked for, and knows when there are none', () => {
    const model = new EnvModel();
    const window = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => change('X', String(from + i), 'effective', from + i));
    const kernel = { python: 'python', version: '3.11', imported: [] };
    const state = (from: number, to: number): Reply => ({
      v: 1, type: 'state', reply_to: null, variables: {}, history: window(from, to), history_total: to, last_report: null, kernel
    });
    model.receive(state(51, 150));
    expect([model.history.length, model.historyTotal, model.olderAvailable]).toEqual([100, 150, true]);
    model.receive({ v: 1, type: 'history', reply_to: 'h1', changes: window(1, 50), total: 150 });
    expect(model.history.map(c => c.seq)).toEqual(window(1, 150).map(c => c.seq));
    expect(model.olderAvailable).toBe(false); // change 1 is here
    model.receive(state(52, 151)); // a refresh after a cell: the latest window again, nothing doubled
    expect([model.history.length, model.history[0].seq, model.historyTotal]).toEqual([151, 1, 151]);

    const dropped = new EnvModel();
    dropped.receive(state(9_901, 10_000));
    dropped.receive({ v: 1, type: 'history', reply_to: 'h2', changes: [], total: 10_000 }); // the kernel let them go
    expect(dropped.olderAvailable).toBe(false);
  });

  it('shows an error reply and clears it on the next result', () => {
    const model = new EnvModel();
    model.receive({ v: 1, type: 'error', reply_to: 's1', message: "'5XB' is not allowed: expected a size", field: null, code: 'bad_value' });
    expect(model.error).toContain('not allowed');
    model.receive({ v: 1, type: 'result', reply_to: 's2', changes: [], status: null, restart: false });
    expect(model.error).toBeNull();
  });

  it('keeps an error about a catalog variable for its field, not for the top of the panel', () => {
    const model = new EnvModel();
    model.receive({
      v: 1, type: 'catalog', reply_to: null, language: 'en', frameworks: [],
      entries: [{ name: 'E_SIZE' } as any]
    });
    model.receive({
      v: 1, type: 'error', reply_to: 's1', message: "E_SIZE: '5XB' is not allowed: expected a size", field: 'E_SIZE', code: 'bad_value'
    });
    expect([model.error, model.fieldError]).toEqual([
      null, { name: 'E_SIZE', message: "E_SIZE: '5XB' is not allowed: expected a size" }
    ]);
    // A name the catalog does not have (a near miss) concerns no field of the panel.
    model.receive({
      v: 1, type: 'error', reply_to: 's2', message: 'E_SIZ is not a known variable; did you mean E_SIZE?', field: 'E_SIZ', code: 'near_miss'
    });
    expect(model.error).toBe('E_SIZ is not a known variable; did you mean E_SIZE?');
    model.receive({ v: 1, type: 'result', reply_to: 's3', changes: [], status: null, restart: false });
    expect([model.error, model.fieldError]).toEqual([null, null]);
  });

  it('ignores unknown messages and refuses another protocol version', () => {
    const model = new EnvModel();
    expect(model.receive({ v: 1, type: 'bogus' } as any)).toBe(false);
    expect(model.receive(null as any)).toBe(false);
    expect(model.entries).toHaveLength(0);
    expect(model.receive({ ...catalog, v: 2 } as any)).toBe(false);
    expect(model.entries).toHaveLength(0);
    expect(model.connection.state).toBe('failed');
    expect(model.connection.detail).toContain('v2');
  });

  it('groups by framework then category and filters by name or description', () => {
    const model = new EnvModel();
    model.receive(catalog);
    const groups = model.groups('');
    expect(groups.map(g => g.framework)).toEqual(['megengine', 'paddle']);
    expect(groups[0].categories.map(c => [c.category, c.entries.length])).toEqual([['DTR', 2], ['Memory', 1]]);
    expect(model.groups('evict').flatMap(g => g.categories.flatMap(c => c.entries.map(e => e.name)))).toEqual([
      'MEGENGINE_DTR_EVICTION_THRESHOLD'
    ]);
    expect(model.groups('allocator naive').map(g => g.framework)).toEqual(['paddle']);
    expect(model.groups('nothing-like-this')).toEqual([]);
  });

  it('forgets the previous kernel on reset, what became of the profile included', () => {
    const model = new EnvModel();
    model.receive(catalog);
    model.receive({ v: 1, type: 'error', reply_to: null, message: 'x', field: null, code: 'invalid' });
    model.setProfileReview({ status: 'declined', items: [] });
    model.resetKernelState();
    expect(model.entries).toHaveLength(0);
    expect(model.error).toBeNull();
    expect(model.variables).toEqual({});
    expect(model.profileReview).toEqual({ status: 'none', items: [] });
  });

  it('takes a profile review as an answer (clearing the last error) and keeps what became of the profile', () => {
    const model = new EnvModel();
    const seen: ModelChange[] = [];
    model.changed.connect((_, c) => seen.push(c));
    model.receive({ v: 1, type: 'error', reply_to: 's1', message: 'no', field: null, code: 'invalid' });
    const items: ProfileItemInfo[] = [
      { name: 'LD_PRELOAD', value: '/tmp/x.so', size: null, current: null, current_size: null, action: 'refused', reason: 'never from a profile' }
    ];
    expect(model.receive({
      v: 1, type: 'profile', reply_to: 'p1', digest: 'd', approved: false, stored: true, applied: false, items, changes: []
    })).toBe(true);
    expect(model.error).toBeNull();
    model.setProfileReview({ status: 'asking', items });
    expect(model.profileReview).toEqual({ status: 'asking', items });
    expect(seen.map(c => c.kind)).toEqual(['error', 'error', 'profile']);
  });
});

describe('badges', () => {
  it.each([
    ['effective', 'effective'],
    ['pending_import', 'takes effect at import'],
    ['pending_first_use', 'takes effect at first use'],
    ['already_read', 'already read, restart needed'],
    ['applied_live', 'applied live'],
    ['may_be_latched', 'may already be latched'],
    ['no_longer_read', 'no longer read'],
    ['option', 'NPURunConfig option'],
    ['unset', 'not set']
  ])('%s → %s, from the schema’s one table', (code, label) => {
    expect(badgeFor(code)).toEqual({ code, label });
    expect(badgeClass(badgeFor(code))).toBe(`mgenv-sb-badge mgenv-sb-badge-${code}`);
  });

  it('shows an unknown code as it came on a neutral badge, and Chinese labels for zh', () => {
    expect(badgeFor('something_new')).toEqual({ code: 'something_new', label: 'something_new' });
    expect(badgeClass(badgeFor('something_new'))).toBe('mgenv-sb-badge mgenv-sb-badge-other');
    expect(badgeFor('toString').label).toBe('toString'); // not a key of the table's prototype either
    expect(badgeFor('already_read', 'zh').label).toBe(STATUS_LABELS.already_read.zh);
  });

  it('picks the catalog language from JupyterLab’s', () => {
    expect(catalogLanguage('zh-CN')).toBe('zh');
    expect(catalogLanguage('zh_TW')).toBe('zh');
    expect(catalogLanguage('en')).toBe('en');
    expect(catalogLanguage('default')).toBe('en');
    expect(catalogLanguage(undefined)).toBe('en');
  });
});

class Metadata implements MetadataHost {
  data: Record<string, unknown> = {};
  getMetadata(key: string): unknown {
    return this.data[key];
  }
  setMetadata(key: string, value: unknown): void {
    this.data[key] = JSON.parse(JSON.stringify(value));
  }
  deleteMetadata(key: string): void {
    delete this.data[key];
  }
}

describe('notebook profile', () => {
  it('adds, replaces and removes variables under metadata.mgenv_jupyter.profile', () => {
    const host = new Metadata();
    expect(readProfile(host)).toEqual({});
    updateProfile(host, 'MGB_ENABLE_DTR', '1');
    updateProfile(host, 'MEGENGINE_DTR_EVICTION_THRESHOLD', '5368709120');
    updateProfile(host, 'MGB_ENABLE_DTR', '0');
    expect(host.data).toEqual({ mgenv_jupyter: { profile: { MGB_ENABLE_DTR: '0', MEGENGINE_DTR_EVICTION_THRESHOLD: '5368709120' } } });
    updateProfile(host, 'MGB_ENABLE_DTR', null);
    expect(readProfile(host)).toEqual({ MEGENGINE_DTR_EVICTION_THRESHOLD: '5368709120' });
    updateProfile(host, 'MEGENGINE_DTR_EVICTION_THRESHOLD', null);
    expect(host.data).toEqual({}); // nothing left: the key goes
  });

  it('keeps other keys of its section and skips what it cannot trust', () => {
    const host = new Metadata();
    host.data.mgenv_jupyter = { other: 42, profile: { GOOD: 'x', BAD: 7, API_TOKEN: 'leak' } };
    expect(readProfile(host)).toEqual({ GOOD: 'x' });
    updateProfile(host, 'GOOD', null);
    expect(host.data).toEqual({ mgenv_jupyter: { other: 42 } });
    host.data.mgenv_jupyter = ['not', 'an', 'object'];
    expect(readProfile(host)).toEqual({});
  });

  it('never stores secrets', () => {
    const host = new Metadata();
    expect(updateProfile(host, 'MY_SECRET_KEY', 'hunter2')).toEqual({});
    expect(host.data).toEqual({});
  });
});
