/// <reference types="node" />
/**
 * The sidebar recognises a secret's name exactly as the kernel does. The rule and its markers are generated from
 * catalog/_secrets.py into src/schema.ts; here the front end's `isSecret` (profile/profile.ts, which keeps secrets out of the
 * notebook's metadata) is run over a table of names. With MGENV_SECRET_NAMES_FIXTURE naming a JSON object
 * {NAME: is_secret_name(NAME)} written by the kernel's own function (tests/frontend/test_secret_names_agreement.py),
 * every verdict must match, and what `isSecret` said is written to MGENV_SECRET_NAMES_OUT for the Python side to
 * compare. Without the variable, a few names the old four-word copy got wrong are checked.
 */
import { readFileSync, writeFileSync } from 'fs';

import { MASK, SECRET_NAME_SUBSTRINGS, SECRET_NAME_WORDS } from '../src/protocol';
import { isSecret } from '../src/sidebar/profile/profile';

const FIXTURE = process.env.MGENV_SECRET_NAMES_FIXTURE;
const OUT = process.env.MGENV_SECRET_NAMES_OUT;

(FIXTURE ? test : test.skip)('isSecret agrees with the kernel on every name (MGENV_SECRET_NAMES_FIXTURE)', () => {
  const expected = JSON.parse(readFileSync(FIXTURE!, 'utf8')) as Record<string, boolean>;
  const names = Object.keys(expected);
  expect(names.length).toBeGreaterThan(0);
  const said: Record<string, boolean> = {};
  for (const name of names) {
    said[name] = isSecret(name);
  }
  if (OUT) {
    writeFileSync(OUT, JSON.stringify(said, null, 2) + '\n');
  }
  expect(said).toEqual(expected);
});

test('the markers are the kernel’s, generated, not a copy of four words', () => {
  expect(MASK).toBe('********');
  expect(SECRET_NAME_SUBSTRINGS).toContain('PASSW');
  expect(SECRET_NAME_WORDS).toContain('PAT');
  // the old copy (KEY, TOKEN, SECRET, PASSWORD) missed these, and the kernel masks them
  for (const name of ['DB_PASSWD', 'GITHUB_PAT', 'SENTRY_DSN', 'BASIC_AUTH', 'GOOGLE_CREDENTIALS', 'session_cookie']) {
    expect(isSecret(name)).toBe(true);
  }
  // whole words only: as substrings they would catch innocent names
  for (const name of ['PATH', 'PATCH_LEVEL', 'GIT_AUTHOR_NAME', 'enable_scope_fusion_passes', 'FLAGS_allocator_strategy']) {
    expect(isSecret(name)).toBe(false);
  }
});
