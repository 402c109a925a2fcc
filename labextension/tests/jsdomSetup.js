// jsdom lacks DragEvent, which @lumino/dragdrop subclasses when @lumino/widgets loads.
if (typeof globalThis.DragEvent === 'undefined') {
  globalThis.DragEvent = class DragEvent extends MouseEvent {};
}
// jsdom lacks matchMedia, which uPlot asks for the device pixel ratio when it loads: no media query ever matches here.
if (typeof window !== 'undefined' && typeof window.matchMedia === 'undefined') {
  window.matchMedia = query => ({
    matches: false, media: query, onchange: null,
    addListener() {}, removeListener() {}, addEventListener() {}, removeEventListener() {}, dispatchEvent: () => false
  });
}
// jsdom lacks requestIdleCallback, with which ui-components' ReactWidget renders (toolbar buttons): run it next tick.
if (typeof window !== 'undefined' && typeof window.requestIdleCallback === 'undefined') {
  window.requestIdleCallback = callback => setTimeout(() => callback({ didTimeout: false, timeRemaining: () => 50 }), 0);
  window.cancelIdleCallback = handle => clearTimeout(handle);
}
