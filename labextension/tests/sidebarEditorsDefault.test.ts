import { nullTranslator } from '@jupyterlab/translation';

import { editorFor } from '../src/sidebar/editors';
import { DOMAIN } from '../src/sidebar/text';
import { entry } from './fakes';

const trans = nullTranslator.load(DOMAIN);

describe('a variable not set', () => {
  it('shows the framework’s default greyed, never as a value set (a checked box, a "2" beside "not set")', () => {
    for (const [kind, value, fallback] of [
      ['switch', '0', '1'],
      ['number', '7', '2'],
      ['fraction', '0.5', '0.92'],
      ['choice', 'b', 'a']
    ] as const) {
      const editor = editorFor(entry(`E_${kind}`, kind, { default: fallback }), () => undefined, trans);
      editor.show(null);
      expect([kind, editor.node.classList.contains('mgenv-sb-at-default')]).toEqual([kind, true]);
      editor.show(value);
      expect([kind, editor.node.classList.contains('mgenv-sb-at-default')]).toEqual([kind, false]);
    }
  });
});
