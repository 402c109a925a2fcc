/**
 * The words the memory chart draws itself, in one bilingual table (the kernel sends the rest — overlay labels and
 * the sources' states — already in its language). The English text is the msgid: in the sidebar the chart's words
 * go through JupyterLab's translator like the panel's own (sidebar/text.ts `translate`, whose gettext catalog the
 * build writes from this table too); the inline chart, an anywidget module outside JupyterLab's plugin system, picks
 * the column of the language JupyterLab gives the page (`<html lang>`), which is the same translation.
 *
 * `%1`, `%2` are gettext's placeholders.
 */

export type ChartLanguage = 'en' | 'zh';

/** The gettext context of the chart's words: "ok" is a source's state here, and a match in the sidebar's verify view. */
export const CHART_CONTEXT = 'memory chart';

export const CHART_WORDS = {
  chartTitle: ['Memory', '内存'],
  sinceKernelStart: ['since kernel start', '自内核启动'],
  cursorTime: ['%1 (%2 since start)', '%1(启动后 %2)'],
  legendNow: ['now', '当前'],
  legendPeak: ['peak', '峰值'],
  legendAt: ['at %1', '%1 时'],
  legendLabel: ['Legend: click a line to hide or show it', '图例:点击一条线以隐藏或显示'],
  legendToggle: ['Click to hide or show this line', '点击以隐藏或显示此线'],
  thisKernel: ['this kernel', '本内核'],
  lostNote: ['%1: no data since %2 was lost', '%1:%2 失联后没有数据'],
  csvTitle: ['Download the data shown as CSV', '下载所显示数据的 CSV'],
  csvLabel: ['Export CSV', '导出 CSV'],
  noDataYet: ['No data yet', '尚无数据'],
  simulatedGpu: ['Simulated GPU', '模拟 GPU'],
  simulatedGpuOf: ['Simulated GPU (%1)', '模拟 GPU(%1)'],
  simulatedMark: ['(simulated)', '(模拟)'],
  sourceOk: ['ok', '正常'],
  nodeLost: ['lost', '已失联'],
  oneNode: ['1 node', '1 个节点'],
  manyNodes: ['%1 nodes', '%1 个节点'],
  hostSource: ['Host', '主机'],
  hostDevice: ['host', '主机'],
  quantityUsed: ['used', '已用'],
  quantityTotal: ['total', '总量'],
  quantityProcess: ['process', '进程'],
  quantityAllocated: ['allocated', '已分配'],
  quantityReserved: ['reserved', '已保留'],
  quantityPeak: ['peak', '峰值'],
  cellAt: ['cell [%1] at %2', '单元 [%1] 于 %2'],
  cellTook: [', %1 s', ',%1 秒'],
  cellRunning: [', running', ',运行中'],
  cellFailed: [', failed', ',出错']
} as const;

export type ChartKey = keyof typeof CHART_WORDS;

/** The chart's words: `text('legendNow')` is "now" or "当前". */
export type ChartText = (key: ChartKey, ...args: (string | number)[]) => string;

/** The column of `language` from the table, with gettext's %1, %2 filled in. */
export function chartText(language: ChartLanguage): ChartText {
  const column = language === 'zh' ? 1 : 0;
  return (key, ...args) => fill(CHART_WORDS[key][column], args);
}

export const ENGLISH: ChartText = chartText('en');

/** The language JupyterLab set for the page ("zh-CN" when its language pack is chosen; "en" otherwise). */
export function pageLanguage(): ChartLanguage {
  const lang = typeof document !== 'undefined' ? document.documentElement.lang : '';
  return (lang ?? '').toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

const QUANTITIES: Record<string, ChartKey> = {
  used: 'quantityUsed',
  total: 'quantityTotal',
  process: 'quantityProcess',
  allocated: 'quantityAllocated',
  reserved: 'quantityReserved',
  peak: 'quantityPeak'
};

/**
 * A series' name in the chart's words: "gpu0 (simulated) process" → "gpu0 (模拟) 进程", "host used" → "主机 已用".
 * Device and framework names stay; only the words "host", "(simulated)" and the last word, the quantity, are ours.
 */
export function seriesName(name: string, text: ChartText): string {
  const words = name.split(' ');
  const last = words.length > 1 ? QUANTITIES[words[words.length - 1]] : undefined;
  if (last) {
    words[words.length - 1] = text(last);
  }
  return words
    .map(word => (word === 'host' ? text('hostDevice') : word === '(simulated)' ? text('simulatedMark') : word))
    .join(' ');
}

function fill(template: string, args: (string | number)[]): string {
  return template.replace(/%(\d)/g, (match, n: string) => (args[Number(n) - 1] !== undefined ? String(args[Number(n) - 1]) : match));
}
