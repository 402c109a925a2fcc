/**
 * Asks the user, with JupyterLab's own dialog, whether to apply a notebook profile the kernel has no approval for.
 * Its own module because @jupyterlab/apputils is not loadable under jest: the body (profile/review.ts) is tested there,
 * the dialog in a real browser (tests/browser/test_browser_profile_trust.py).
 */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { ProfileQuestion, reviewBody } from './review';
import { Translation } from '../text';

/** The question, in the words `trans` gives (the user's language). */
export const askToApplyProfile = (trans: Translation): ProfileQuestion => async args => {
  const result = await showDialog({
    title: trans.__('Apply this notebook’s profile?'),
    body: new Widget({ node: reviewBody(args, trans) }),
    buttons: [Dialog.cancelButton({ label: trans.__('Don’t apply') }), Dialog.okButton({ label: trans.__('Apply profile') })],
    // Enter, or a stray key, must not give consent: the focused default is "Don't apply".
    defaultButton: 0
  });
  return result.button.accept;
};
