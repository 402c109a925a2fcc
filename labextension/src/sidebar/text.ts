/**
 * The sidebar's own words, in one bilingual table. The English text is the msgid: every word the panel shows goes
 * through JupyterLab's translator (`translator.load(DOMAIN).__(english)`), and the Chinese column reaches it the
 * JupyterLab way, as a gettext catalog the build writes from this table (scripts/locale.mjs →
 * mgenv_jupyter/locale/zh_CN/LC_MESSAGES/mgenv_jupyter.json, served by jupyterlab_server through the
 * "jupyterlab.locale" entry point). Descriptions of variables and status labels are not here: the kernel sends the
 * former in the catalog language, the schema's STATUS_LABELS holds the latter.
 *
 * `%1`, `%2` are gettext's placeholders: a text that has them is always translated with its arguments.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

import { CHART_CONTEXT, CHART_WORDS, ChartKey } from '../chart/text';

import { GPU_WORDS } from './gpuText';

export type Language = 'en' | 'zh';

/** The gettext domain of the sidebar's texts (the Python package's name, as JupyterLab's locale lookup wants it). */
export const DOMAIN = 'mgenv_jupyter';

/** JupyterLab's UI language ("zh_CN", "zh-TW", "en", "default") → the catalog language. */
export function catalogLanguage(languageCode: string | undefined | null): Language {
  return (languageCode ?? '').toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

const WORDS = {
  ...GPU_WORDS,
  title: ['Framework Env', '框架环境变量'],
  noNotebook: ['Open a notebook to edit its kernel’s framework variables.', '打开一个笔记本以编辑其内核的框架变量。'],
  noKernel: ['This notebook has no kernel.', '此笔记本没有内核。'],
  loading: ['Loading mgenv_jupyter in the kernel…', '正在内核中加载 mgenv_jupyter…'],
  dead: ['The kernel is dead.', '内核已停止。'],
  restarting: ['The kernel is restarting…', '内核正在重启…'],
  closed: ['The kernel closed the connection to the sidebar.', '内核关闭了与侧边栏的连接。'],
  imported: ['imported: %1', '已导入:%1'],
  notInstalled: [
    'mgenv_jupyter is not installed in this kernel’s environment.',
    '此内核的环境中没有安装 mgenv_jupyter。'
  ],
  notInstalledHow: [
    'Install it there by running this in a cell of this notebook, then restart the kernel:',
    '请在此笔记本的单元格中运行以下命令安装,然后重启内核:'
  ],
  loadFailed: ['Could not load mgenv_jupyter in this kernel:', '无法在此内核中加载 mgenv_jupyter:'],
  restartApply: ['Restart and apply', '重启并应用'],
  oomApply: ['Apply', '应用'],
  oomLast: ['Last out of memory in this kernel', '此内核最近一次内存不足'],
  oomApplied: ['Applied', '已应用'],
  oomApplyTitle: [
    'Set this in the kernel (%1) and keep it in the notebook profile',
    '在内核中设置(%1),并保存到笔记本配置中'
  ],
  oomApplying: ['Setting…', '正在设置…'],
  oomSetWhen: ['Set in this kernel and kept in the notebook profile: %1.', '已在此内核中设置并保存到笔记本配置中:%1。'],
  oomSetRestart: [
    'Set and kept in the notebook profile; it takes effect after a restart.',
    '已设置并保存到笔记本配置中,重启内核后生效。'
  ],
  oomNoKernel: [
    'This report’s notebook has no running kernel to set it in.',
    '此报告所在的笔记本没有正在运行的内核。'
  ],
  oomRefused: ['The kernel refused it: %1', '内核拒绝了此设置:%1'],
  verifyTitle: ['Cluster nodes: what their workers see', '集群节点:工作进程实际看到的值'],
  verifyAt: ['cluster.verify() at %1', 'cluster.verify() 于 %1'],
  verifyRun: ['Verify nodes', '验证节点'],
  verifyRunTitle: [
    'Run mgenv_jupyter.cluster.verify() in the kernel: a small Ray task on each node reads the session’s variables ' +
      'in a worker there (Ray must be initialised in the kernel)',
    '在内核中运行 mgenv_jupyter.cluster.verify():在每个节点上运行一个小的 Ray 任务,读取那里工作进程中的会话变量' +
      '(内核中须已初始化 Ray)'
  ],
  verifyRunning: ['Verifying the nodes…', '正在验证各节点…'],
  verifySummaryOne: ['1 node: %2 ok, %3 mismatch, %4 lost', '1 个节点:%2 个一致,%3 个不一致,%4 个失联'],
  verifySummary: ['%1 nodes: %2 ok, %3 mismatch, %4 lost', '%1 个节点:%2 个一致,%3 个不一致,%4 个失联'],
  verifyNote: [
    'Ray workers are new processes: a value they started with takes effect there, import-time variables included.',
    'Ray 工作进程是新进程:启动时已有的值在那里生效,导入时读取的变量也一样。'
  ],
  verifyOk: ['ok', '一致'],
  verifyMismatch: ['mismatch', '不一致'],
  verifyLost: ['lost', '失联'],
  verifyCounts: ['%1 ok · %2 mismatch · %3 missing', '%1 个一致 · %2 个不一致 · %3 个缺失'],
  verifyNoAnswer: ['no answer: %1', '无应答:%1'],
  verifyNoVariables: ['no variables to verify', '没有需要验证的变量'],
  verifyMatches: ['✓ matches', '✓ 一致'],
  verifyDiffers: ['✗ differs', '✗ 不一致'],
  verifyMissing: ['✗ missing', '✗ 缺失'],
  verifySession: ['session: %1', '会话:%1'],
  verifyWorkers: ['workers: %1', '工作进程:%1'],
  verifySecretSame: ['secret: the workers hold the session’s value', '密钥:工作进程中的值与会话相同'],
  verifySecretOther: ['secret: the workers hold another value', '密钥:工作进程中是另一个值'],
  verifyAtStart: ['there at worker start: imports there read it', '工作进程启动时已存在:那里的导入会读取它'],
  verifyAfterStart: [
    'arrived after worker start: a framework imported before did not read it',
    '在工作进程启动后才出现:之前导入的框架没有读取它'
  ],
  verifyImportedBefore: ['already imported there: %1', '那里已导入:%1'],
  verifyMissingThere: ['missing in this node’s workers', '此节点的工作进程中没有该变量'],
  restartApplyCount: ['Restart and apply (%1)', '重启并应用(%1)'],
  restartApplyTitle: [
    'Restart the kernel and apply this notebook’s profile before any cell runs (import-time variables take effect)',
    '重启内核,并在任何单元格运行之前应用此笔记本的配置(导入时读取的变量随之生效)'
  ],
  restartTitle: ['Restart the kernel and apply the profile?', '重启内核并应用配置?'],
  restartIntro: [
    'The kernel of {notebook} restarts: everything its cells defined is lost. Before any cell runs, the notebook ' +
      'profile sets:',
    '笔记本 {notebook} 的内核将重启,单元格中定义的一切都会丢失。在任何单元格运行之前,笔记本配置将设置:'
  ],
  restartEmpty: [
    'The notebook profile is empty: the kernel restarts and nothing is applied.',
    '笔记本配置为空:内核将重启,不应用任何变量。'
  ],
  restartWhy: ['Why restart', '为何需要重启'],
  restartDiffers: ['the kernel holds another value', '内核中是另一个值'],
  restartRefused: ['never taken from a profile: a restart does not set it', '从不取自配置:重启也不会设置它'],
  restartSaved: [
    'The profile is kept in this notebook’s metadata (metadata.mgenv_jupyter.profile) and the notebook is saved.',
    '配置保存在此笔记本的元数据中(metadata.mgenv_jupyter.profile),笔记本已保存。'
  ],
  restartUnsaved: [
    'The profile is kept in this notebook’s metadata (metadata.mgenv_jupyter.profile), and the notebook has ' +
      'unsaved changes: until it is saved, reloading the page loses the profile, and the notebook’s next kernel ' +
      'does not get it.',
    '配置保存在此笔记本的元数据中(metadata.mgenv_jupyter.profile),而笔记本有未保存的修改:保存之前,' +
      '重新加载页面会丢失配置,此笔记本下次启动的内核也不会应用它。'
  ],
  restartSave: ['Save the notebook first', '先保存笔记本'],
  cancel: ['Cancel', '取消'],
  refresh: ['Refresh', '刷新'],
  refreshTitle: [
    'Ask the kernel again for every variable’s value and status',
    '重新向内核获取每个变量的值和状态'
  ],
  openSidebar: ['Show Framework Env', '显示框架环境变量'],
  openSidebarTitle: [
    'Show the Framework Env sidebar: the framework variables of the notebook’s kernel and its live GPU memory',
    '显示框架环境变量侧边栏:笔记本内核的框架变量及其实时 GPU 显存'
  ],
  variables: ['Variables', '变量'],
  search: ['Search variables', '搜索变量'],
  searchPlaceholder: ['Search name or description…', '按名称或说明搜索…'],
  profile: ['Notebook profile', '笔记本配置'],
  profileNote: [
    'saved in this notebook; applied when its kernel starts, once you have approved this exact profile',
    '保存在此笔记本中;您批准这份配置后,每次内核启动时应用'
  ],
  profileChecking: ['checking it with the kernel…', '正在由内核检查…'],
  profileAsking: ['waiting for your answer: apply it?', '等待您的答复:是否应用?'],
  profileApplied: ['applied to this kernel', '已应用到此内核'],
  profileDeclined: [
    'not applied: you have not approved this profile; you are asked again when the kernel starts',
    '未应用:您尚未批准这份配置;内核下次启动时会再次询问'
  ],
  profileFailed: ['not applied: the kernel could not review it', '未应用:内核无法检查这份配置'],
  profileReview: ['Review and apply…', '查看并应用…'],
  profileReviewTitle: [
    'See what this notebook’s profile would set, and apply it to this kernel if you approve',
    '查看此笔记本的配置将设置哪些变量,批准后应用到此内核'
  ],
  profileRefusedMark: ['will not be applied', '不会应用'],
  askTitle: ['Apply this notebook’s profile?', '应用此笔记本的配置?'],
  askIntro: [
    'The notebook {notebook} carries a profile of framework variables to set in its kernel. It came with the file, ' +
      'so apply it only if you trust where the notebook came from. Nothing has been set yet.',
    '笔记本 {notebook} 带有一份要在其内核中设置的框架变量配置。它随文件而来,请仅在信任该笔记本来源时应用。' +
      '目前尚未设置任何变量。'
  ],
  askRemember: [
    'Approving is remembered on this computer for this exact profile: reopening it does not ask again, a changed ' +
      'profile does. If you don’t apply it, nothing changes and you are asked again the next time its kernel starts.',
    '批准结果会针对这份配置保存在本机:再次打开不会再询问,配置改动后会重新询问。' +
      '如果不应用,则不做任何更改,下次内核启动时会再次询问。'
  ],
  askWillSet: ['Will be set', '将会设置'],
  askRefused: ['Will not be applied', '不会应用'],
  askRefusedNote: ['The kernel refuses these whatever you answer:', '无论您如何答复,内核都会拒绝以下变量:'],
  askNothingToSet: ['Nothing in this profile would be set.', '这份配置中没有会被设置的变量。'],
  askVariable: ['Variable', '变量'],
  askValue: ['Value', '值'],
  askNow: ['Now', '当前值'],
  askWhy: ['Why', '原因'],
  askUnchanged: ['already this value', '已是此值'],
  askApply: ['Apply profile', '应用配置'],
  askDontApply: ['Don’t apply', '不应用'],
  profileEmpty: ['Variables you set here are saved in the notebook.', '在此设置的变量会保存在笔记本中。'],
  removeFromProfile: ['Remove from the profile', '从配置中移除'],
  unset: ['Unset', '取消设置'],
  unsetTitle: ['Unset (back to the framework’s default)', '取消设置(恢复框架默认值)'],
  notSet: ['(not set)', '(未设置)'],
  notSetDefault: ['(not set) — default %1', '(未设置)— 默认值 %1'],
  defaultIs: ['default: %1', '默认值:%1'],
  keyDefaultUnset: ['default: off or unlimited', '默认:关闭或不限'],
  keyReset: ['%1: back to the default (left out of the value)', '%1:恢复默认(不写入该值)'],
  keyJoined: ['joined: %1', '合成的值:%1'],
  keyAllDefault: ['every key at its default (the variable is left unset)', '所有键都取默认值(不设置该变量)'],
  noDefault: ['no default', '无默认值'],
  now: ['the kernel holds %1', '内核中的值为 %1'],
  allowed: ['Allowed', '允许的值'],
  readAt: ['Read in the source at', '源码中的读取位置'],
  readers: ['Read by', '读取者'],
  replacedBy: ['Use instead', '请改用'],
  details: ['details', '详情'],
  live: ['live', '运行时接口'],
  liveExample: ['live (example, with the default)', '运行时接口(示例,取默认值)'],
  history: ['Change history', '修改历史'],
  historyEmpty: ['No changes yet.', '尚无修改。'],
  historyCount: ['showing the latest %1 of %2 changes', '显示全部 %2 条修改中最新的 %1 条'],
  historyOlder: ['Show older changes', '显示更早的修改'],
  unsetValue: ['(unset)', '(未设置)'],
  effectiveValue: ['in effect: %1', '实际生效:%1'],
  memory: ['Live GPU memory', '实时 GPU 显存'],
  error: ['Error: %1', '错误:%1'],
  secretNotSaved: ['secret values are not saved in the notebook', '密钥类的值不会保存到笔记本中'],
  caveats: ['caveats (%1)', '注意事项(%1)'],
  noMatch: ['No variable matches.', '没有匹配的变量。']
} as const;

/** The panel's words and the memory chart's (chart/text.ts, translated in their own gettext context). */
export type TextKey = keyof typeof WORDS | ChartKey;

/** What the sidebar needs of a JupyterLab TranslationBundle. */
export type Translation = Pick<TranslationBundle, '__' | '_p'>;

/** The panel's words: `t('title')` is `trans.__('Framework Env')` in the user's language. */
export type Translate = (key: TextKey, ...args: (string | number)[]) => string;

export function translate(trans: Translation): Translate {
  return (key, ...args) =>
    key in CHART_WORDS
      ? trans._p(CHART_CONTEXT, CHART_WORDS[key as ChartKey][0], ...args)
      : trans.__(WORDS[key as keyof typeof WORDS][0], ...args);
}

/** The gettext catalog of the Chinese column, in the Jed format JupyterLab's language packs ship (LC_MESSAGES/*.json). */
export interface JedCatalog {
  '': { domain: string; language: string; plural_forms: string; version: string };
  [msgid: string]: string[] | JedCatalog[''];
}

export function jedCatalog(version: string): JedCatalog {
  const catalog: JedCatalog = {
    '': { domain: DOMAIN, language: 'zh-CN', plural_forms: 'nplurals=1; plural=0;', version }
  };
  for (const [english, chinese] of Object.values(WORDS)) {
    catalog[english] = [chinese];
  }
  for (const [english, chinese] of Object.values(CHART_WORDS)) {
    catalog[`${CHART_CONTEXT}\u0004${english}`] = [chinese];
  }
  return catalog;
}
