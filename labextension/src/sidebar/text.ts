/**
 * The sidebar's own words in English and Chinese. Descriptions of variables come from the kernel's catalog in the
 * language asked for in "hello"; these are only the panel's labels.
 */

export type Language = 'en' | 'zh';

/** JupyterLab's UI language ("zh_CN", "zh-TW", "en", "default") → the catalog language. */
export function catalogLanguage(languageCode: string | undefined | null): Language {
  return (languageCode ?? '').toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

const WORDS = {
  title: ['Framework Env', '框架环境变量'],
  noNotebook: ['Open a notebook to edit its kernel’s framework variables.', '打开一个笔记本以编辑其内核的框架变量。'],
  noKernel: ['This notebook has no kernel.', '此笔记本没有内核。'],
  connecting: ['Connecting to the kernel…', '正在连接内核…'],
  loading: ['Loading mgenv_jupyter in the kernel…', '正在内核中加载 mgenv_jupyter…'],
  dead: ['The kernel is dead.', '内核已停止。'],
  restarting: ['The kernel is restarting…', '内核正在重启…'],
  closed: ['The kernel closed the connection to the sidebar.', '内核关闭了与侧边栏的连接。'],
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
  restartApplyTitle: [
    'Restart the kernel and apply this notebook’s profile before any cell runs (import-time variables take effect)',
    '重启内核,并在任何单元格运行之前应用此笔记本的配置(导入时读取的变量随之生效)'
  ],
  refresh: ['Refresh', '刷新'],
  search: ['Search variables', '搜索变量'],
  searchPlaceholder: ['Search name or description…', '按名称或说明搜索…'],
  profile: ['Notebook profile', '笔记本配置'],
  profileNote: [
    'saved in this notebook; applied whenever its kernel starts',
    '保存在此笔记本中;每次内核启动时自动应用'
  ],
  profileEmpty: ['Variables you set here are saved in the notebook.', '在此设置的变量会保存在笔记本中。'],
  removeFromProfile: ['Remove from the profile', '从配置中移除'],
  unset: ['Unset', '取消设置'],
  unsetTitle: ['Unset (back to the framework’s default)', '取消设置(恢复框架默认值)'],
  notSet: ['(not set)', '(未设置)'],
  defaultIs: ['default', '默认'],
  history: ['Change history', '修改历史'],
  historyEmpty: ['No changes yet.', '尚无修改。'],
  memory: ['Live GPU memory', '实时 GPU 显存'],
  error: ['Error', '错误'],
  secretNotSaved: ['secret values are not saved in the notebook', '密钥类的值不会保存到笔记本中'],
  caveats: ['caveats', '注意事项'],
  noMatch: ['No variable matches.', '没有匹配的变量。']
} as const;

export type TextKey = keyof typeof WORDS;

export function text(key: TextKey, language: Language): string {
  return WORDS[key][language === 'zh' ? 1 : 0];
}
