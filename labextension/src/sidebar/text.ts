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
