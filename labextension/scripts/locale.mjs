// Writes the sidebar's Chinese gettext catalog, in the Jed JSON format of JupyterLab's language packs, from the
// catalog keyed by msgid in src/locale/zh_CN.json, to ../mgenv_jupyter/locale/zh_CN/LC_MESSAGES/mgenv_jupyter.json;
// jupyterlab_server finds it through the package's "jupyterlab.locale" entry point. A build output (git-ignored,
// shipped in the wheel).
import { buildSync } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
// text.ts imports only types, so it bundles alone into a module that can be run here.
const [bundle] = buildSync({
  entryPoints: [join(root, 'src/sidebar/text.ts')],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  write: false
}).outputFiles;
const module = { exports: {} };
new Function('module', 'exports', 'require', bundle.text)(module, module.exports, createRequire(import.meta.url));
const { jedCatalog, DOMAIN } = module.exports;

const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
const messages = JSON.parse(readFileSync(join(root, 'src', 'locale', 'zh_CN.json'), 'utf8'));
const target = join(root, '..', 'mgenv_jupyter', 'locale', 'zh_CN', 'LC_MESSAGES', `${DOMAIN}.json`);
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, JSON.stringify(jedCatalog(messages, version), null, 2) + '\n');
console.log(`wrote ${relative(process.cwd(), target)}`);
