/** The output host's class on its node: a widget view inside it (the inline chart) tells the kernel it is hosted. Apart
 * from host.ts so that the chart's own module (an anywidget bundle) takes it without JupyterLab's packages. */
export const OUTPUT_HOST_CLASS = 'mgenv-output-host';
