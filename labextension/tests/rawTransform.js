// @jupyterlab/ui-components imports its icons' SVG and its CSS as modules (webpack loads them as text): here, the
// file's text as the module's value, as JupyterLab's own jest setup does.
module.exports = { process: source => ({ code: `module.exports = ${JSON.stringify(source)};` }) };
