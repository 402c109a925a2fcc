import { badgeFor } from '../src/sidebar/badges';
import { EnvModel, HISTORY_LIMIT, ModelChange } from '../src/sidebar/model';
import { MetadataHost, readProfile, updateProfile } from '../src/sidebar/profile';
import { catalogLanguage } from '../src/sidebar/text';
import { ChangeInfo, Reply } from '../src/protocol';
import { entry } from './fakes';

const catalog: Reply = {
  v: 1,
  type: 'catalog',
  reply_to: 'h1',
  language: 'en',
  entries: [
    entry('MGB_ENABLE_DTR', 'switch', { category: 'DTR' }),
    entry('MEGENGINE_DTR_EVICTION_THRESHOLD', 'size', { category: 'DTR', description: 'Evict tensors above this' }),
    entry('MGB_CUDA_RESERVE_MEMORY', 'presence', { category: 'Memory' }),
    entry('FLAGS_allocator_strategy', 'enum', { framework: 'paddle', category: 'Memory', description: 'auto_growth or naive_best_fit' })
  ]
};

function change(name: string, value: string | null, outcome: string, time = 1): ChangeInfo {
  return {
    seq: time, time, name, old: null, new: value, source: 'magic', outcome, message: `${name} ${outcome}`, effective: null,
    secret: false
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
        MGB_ENABLE_DTR: { value: null, status: 'pending import', message: 'read when `import megengine` runs' },
        MEGENGINE_DTR_EVICTION_THRESHOLD: { value: null, status: 'pending import', message: '' }
      },
      history: [change('MGB_ENABLE_DTR', '1', 'takes effect at import')],
      history_total: 1,
      kernel: { python: '/usr/bin/python3', version: '3.11.7', imported: [] }
    });
    expect(model.variable('MGB_ENABLE_DTR')?.status).toBe('pending import');
    expect(model.history).toHaveLength(1);
    expect(model.kernel?.version).toBe('3.11.7');

    seen.length = 0;
    model.receive({
      v: 1,
      type: 'changed',
      changes: [change('MEGENGINE_DTR_EVICTION_THRESHOLD', '5368709120', 'already read, restart needed', 2)],
      variables: {
        MEGENGINE_DTR_EVICTION_THRESHOLD: { value: '5368709120', status: 'already read, restart needed', message: 'megengine read unset' }
      }
    });
    expect(model.variable('MEGENGINE_DTR_EVICTION_THRESHOLD')?.value).toBe('5368709120');
    expect(model.variable('MGB_ENABLE_DTR')?.status).toBe('pending import'); // untouched by a partial notice
    expect(model.history.map(c => c.name)).toEqual(['MGB_ENABLE_DTR', 'MEGENGINE_DTR_EVICTION_THRESHOLD']);
    expect(model.badge('MEGENGINE_DTR_EVICTION_THRESHOLD')).toEqual({ kind: 'already-read', label: 'already read, restart needed' });
    expect(seen).toEqual([{ kind: 'variables', names: ['MEGENGINE_DTR_EVICTION_THRESHOLD'] }, { kind: 'history' }]);
  });

  it('keeps the history bounded', () => {
    const model = new EnvModel();
    const changes = Array.from({ length: HISTORY_LIMIT + 10 }, (_, i) => change('X', String(i), 'effective now', i));
    model.receive({ v: 1, type: 'changed', changes, variables: {} });
    expect(model.history).toHaveLength(HISTORY_LIMIT);
    expect(model.history[HISTORY_LIMIT - 1].new).toBe(String(HISTORY_LIMIT + 9));
  });

  it('shows an error reply and clears it on the next result', () => {
    const model = new EnvModel();
    model.receive({ v: 1, type: 'error', reply_to: 's1', message: "'5XB' is not allowed: expected a size" });
    expect(model.error).toContain('not allowed');
    model.receive({ v: 1, type: 'result', reply_to: 's2', changes: [] });
    expect(model.error).toBeNull();
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
    model.receive({ v: 1, type: 'error', reply_to: null, message: 'x' });
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
    model.receive({ v: 1, type: 'error', reply_to: 's1', message: 'no' });
    const items = [{ name: 'LD_PRELOAD', value: '/tmp/x.so', current: null, action: 'refused', reason: 'never from a profile' }];
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
    ['effective now', 'effective', 'effective'],
    ['in effect', 'effective', 'effective'],
    ['pending import', 'pending', 'pending import'],
    ['takes effect at import', 'pending', 'pending import'],
    ['pending first use', 'pending', 'pending first use'],
    ['already read, restart needed', 'already-read', 'already read, restart needed'],
    ['applied live', 'live', 'applied live'],
    ['may already be latched', 'latched', 'may already be latched'],
    ['no longer read', 'dead', 'no longer read'],
    ['NPURunConfig option', 'option', 'NPURunConfig option']
  ])('%s → %s', (status, kind, label) => {
    expect(badgeFor(status)).toEqual({ kind, label });
  });

  it('shows an unknown status in the kernel’s words, and Chinese labels for zh', () => {
    expect(badgeFor('something new')).toEqual({ kind: 'other', label: 'something new' });
    expect(badgeFor('already read, restart needed', 'zh').label).toBe('已被读取,需重启');
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
