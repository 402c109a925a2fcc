/**
 * Asks before "Restart and apply" restarts the kernel, with JupyterLab's own dialog (JupyterLab's restart asks too):
 * what the new kernel will get — the profile, and the values this session set that a restart carries over, each with
 * a box to keep it in the notebook — and, when the notebook has unsaved changes, whether to save it first, since the
 * profile lives in its metadata. Its own module because @jupyterlab/apputils is not loadable under jest: the body
 * (profile/restartReview.ts) is tested there, the dialog in a real browser (tests/browser/test_layout_sidebar.py).
 */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { keptNames, RestartQuestion, restartBody } from './restartReview';
import { Language, Translation } from '../text';

export const askToRestart =
  (trans: Translation, language: Language): RestartQuestion =>
  async args => {
    const body = restartBody(args, trans, language);
    const result = await showDialog({
      title: trans.__('Restart the kernel and apply these values?'),
      body: new Widget({ node: body }),
      buttons: [Dialog.cancelButton({ label: trans.__('Cancel') }), Dialog.warnButton({ label: trans.__('Restart and apply') })],
      // Saving is what keeps the profile: offered, ticked, whenever there is something unsaved.
      checkbox: args.saved ? null : { label: trans.__('Save the notebook first'), checked: true },
      defaultButton: 1 // as JupyterLab's own restart: the user asked for it, Enter confirms
    });
    const restart = result.button.accept;
    return { restart, save: restart && result.isChecked === true, keep: restart ? keptNames(body) : [] };
  };
