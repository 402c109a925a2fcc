import { LabIcon } from '@jupyterlab/ui-components';

/** The sidebar's tab icon: sliders over a memory bar. */
export const sidebarIcon = new LabIcon({
  name: 'mgenv-jupyter:sidebar',
  svgstr: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="16" height="16">
  <g class="jp-icon3" fill="#616161">
    <rect x="3" y="4" width="18" height="2" rx="1"/><circle cx="8" cy="5" r="2.2"/>
    <rect x="3" y="10" width="18" height="2" rx="1"/><circle cx="15" cy="11" r="2.2"/>
    <rect x="3" y="16" width="18" height="5" rx="1" fill-opacity="0.35"/><rect x="3" y="16" width="11" height="5" rx="1"/>
  </g>
</svg>`
});
