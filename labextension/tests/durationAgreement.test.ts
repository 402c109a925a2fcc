/// <reference types="node" />
/**
 * The front end's half of one notation of durations: with MGENV_DURATIONS naming a JSON list of seconds, what
 * `formatDuration` writes for each (English) goes to MGENV_DURATIONS_OUT, and a Python test
 * (tests/frontend/test_duration_notation.py) compares it with catalog/_values.py format_duration, which the hub's page,
 * the culler's log and the out-of-memory report write. Without the variable the test is skipped.
 */
import { readFileSync, writeFileSync } from 'fs';

import { nullTranslator } from '@jupyterlab/translation';

import { formatDuration } from '../src/shared/kernelUse';

const FIXTURE = process.env.MGENV_DURATIONS;
const OUT = process.env.MGENV_DURATIONS_OUT;

(FIXTURE ? test : test.skip)('durations are written as the kernel writes them (MGENV_DURATIONS)', () => {
  const seconds = JSON.parse(readFileSync(FIXTURE!, 'utf8')) as number[];
  const trans = nullTranslator.load('mgenv_jupyter');
  writeFileSync(OUT!, JSON.stringify(seconds.map(s => formatDuration(s, trans))));
});
