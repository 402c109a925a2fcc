import { nullTranslator } from '@jupyterlab/translation';

import { OomReportView } from '../src/oom/report';
import { DOMAIN } from '../src/sidebar/text';
import { OOM_MIME, OOM_VERSION } from '../src/protocol';

/**
 * A notebook saved with an out-of-memory report of version 2 (before each remedy carried the kernel's id) must not
 * show Apply buttons: a click could only send a request the kernel cannot resolve. It shows the report's text.
 */
describe('an out-of-memory report saved by an earlier version', () => {
  it('renders as its plain text, with no button', async () => {
    expect(OOM_VERSION).toBeGreaterThan(2);
    const saved = {
      v: 2, language: 'en', headline: 'Out of memory on gpu0', sections: [],
      timeline: { title: 'Timeline', chart: null, lines: [] },
      remedies: [{ cause: 'cap', assignments: [['A', '1']], envset: '%envset A=1', restart: false, when: 'applies live',
        why: 'why', caveat: null }],
      remedies_title: 'Remedies', no_remedy: null, footer: ''
    };
    const view = new OomReportView({
      trans: nullTranslator.load(DOMAIN), notebook: null, apply: async () => null, restart: async () => 0
    });
    await view.renderModel({ data: { [OOM_MIME]: saved, 'text/plain': 'the saved report' } } as any);
    expect(view.node.textContent).toBe('the saved report');
    expect(view.node.querySelector('button')).toBeNull();
  });
});
