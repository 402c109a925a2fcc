// jsdom lacks DragEvent, which @lumino/dragdrop subclasses when @lumino/widgets loads.
if (typeof globalThis.DragEvent === 'undefined') {
  globalThis.DragEvent = class DragEvent extends MouseEvent {};
}
