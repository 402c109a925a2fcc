/**
 * The chart's colours and fonts, read from JupyterLab's CSS variables when it draws, so that the canvas follows the
 * light, dark and high-contrast themes like the HTML around it does. Outside JupyterLab (another anywidget front
 * end) the variables are missing and the fallbacks, JupyterLab Light's values, apply.
 */
import { MarkKind, OverlayKind } from '../protocol';

export interface ChartTheme {
  font: string;
  text: string;
  muted: string;
  grid: string;
  background: string;
  series: string[];
  overlays: Record<OverlayKind, string>;
  marker: string;
  /** Marks of moments that are not cells ("freed": memory given back). */
  marks: Record<MarkKind, string>;
}

/** Series colours: JupyterLab's named colours first, distinct from the overlays' red, orange and grey. */
const SERIES_VARIABLES: [string, string][] = [
  ['--jp-brand-color1', '#1976d2'],
  ['--jp-success-color1', '#388e3c'],
  ['--jp-mirror-editor-operator-color', '#7800c2'],
  ['--jp-info-color1', '#0097a7'],
  ['--jp-brand-color0', '#0d47a1'],
  ['--jp-accent-color0', '#1b5e20'],
  ['--jp-brand-color2', '#64b5f6'],
  ['--jp-info-color0', '#006064']
];

export function readTheme(element: Element): ChartTheme {
  const style = getComputedStyle(element);
  const read = (name: string, fallback: string): string => style.getPropertyValue(name).trim() || fallback;
  const family = read('--jp-ui-font-family', 'system-ui, sans-serif');
  return {
    font: `11px ${family}`,
    text: read('--jp-ui-font-color1', 'rgba(0, 0, 0, 0.87)'),
    muted: read('--jp-ui-font-color2', 'rgba(0, 0, 0, 0.54)'),
    grid: read('--jp-border-color2', '#e0e0e0'),
    background: read('--jp-layout-color1', 'white'),
    series: SERIES_VARIABLES.map(([name, fallback]) => read(name, fallback)),
    overlays: {
      total: read('--jp-ui-font-color2', 'rgba(0, 0, 0, 0.54)'),
      dtr_threshold: read('--jp-error-color1', '#d32f2f'),
      paddle_cap: read('--jp-warn-color1', '#f57c00'),
      // Only in an out-of-memory report's timeline: an earlier cell's peak, and what was held plus what was asked.
      cell_peak: read('--jp-success-color1', '#388e3c'),
      oom_request: read('--jp-error-color1', '#d32f2f')
    },
    marker: read('--jp-ui-font-color3', 'rgba(0, 0, 0, 0.38)'),
    marks: { freed: read('--jp-success-color1', '#388e3c') }
  };
}

/**
 * Call `changed` whenever JupyterLab switches theme: it marks the body with the theme's name and lightness once
 * the new theme's CSS is in place. Returns the function that stops watching.
 */
export function watchTheme(changed: () => void): () => void {
  if (typeof MutationObserver === 'undefined' || typeof document === 'undefined' || !document.body) {
    return () => undefined;
  }
  const observer = new MutationObserver(changed);
  observer.observe(document.body, { attributes: true, attributeFilter: ['data-jp-theme-light', 'data-jp-theme-name'] });
  return () => observer.disconnect();
}
