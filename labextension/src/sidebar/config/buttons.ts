/** JupyterLab's own button (ui-components' Button: minimal and small), so every theme draws it. */
import { el } from '../../shared/dom';

export const BUTTON_CLASS = 'jp-Button jp-mod-minimal jp-mod-small';

export function button(label: string, title: string, className: string): HTMLButtonElement {
  const node = el('button', `${BUTTON_CLASS} ${className}`) as HTMLButtonElement;
  node.textContent = label;
  node.title = title;
  return node;
}
