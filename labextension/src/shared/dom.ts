/** The DOM helpers the sidebar and the out-of-memory report draw with. */

export function el(tag: string, className: string): HTMLElement {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  return node;
}

/** A text shown as code (a name or a value), never parsed as markup. */
export function code(text: string): HTMLElement {
  const node = el('code', '');
  node.textContent = text;
  return node;
}

export function option(value: string, label: string = value): HTMLOptionElement {
  const node = document.createElement('option');
  node.value = value;
  node.textContent = label;
  return node;
}

/**
 * The catalog's texts mark code with backticks ("read at `import megengine`"), as the magics' Markdown does: here
 * each marked span becomes a <code> element, so the backticks are never shown. An unpaired backtick stays as text.
 */
export function withCode(text: string): (string | HTMLElement)[] {
  const parts = text.split('`');
  if (parts.length % 2 === 0) {
    return [text];
  }
  return parts
    .map((part, i) => {
      if (i % 2 === 0) {
        return part;
      }
      const code = el('code', 'mgenv-sb-code');
      code.textContent = part;
      return code;
    })
    .filter(part => part !== '');
}

/** A table's head: one column header a label (`scope="col"`, so a screen reader names each cell by its column). */
export function tableHead(labels: readonly string[]): HTMLElement {
  const head = el('thead', '');
  const row = el('tr', '');
  for (const label of labels) {
    const cell = el('th', '');
    cell.setAttribute('scope', 'col');
    cell.textContent = label;
    row.append(cell);
  }
  head.append(row);
  return head;
}

/** A variable's name as text that breaks only after its underscores (MGE_DEFAULT_ / DEVICE, never MGE_DEF / AULT). */
export function breakableName(name: string): (string | HTMLElement)[] {
  const parts = name.split(/(?<=_)/);
  return parts.flatMap((part, i) => (i < parts.length - 1 ? [part, document.createElement('wbr')] : [part]));
}
