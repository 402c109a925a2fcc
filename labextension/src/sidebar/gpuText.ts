/**
 * The words of the "GPUs on this server" section (gpuView.ts), in the sidebar's one bilingual table format: text.ts
 * spreads them into WORDS, so they go through JupyterLab's translator and the build's gettext catalog like every
 * other word of the panel. `%1`, `%2`, `%3` are gettext's placeholders.
 */
export const GPU_WORDS = {
  gpusTitle: ['GPUs on this server', '本服务器的 GPU'],
  gpusLoading: ['Reading the server’s GPUs…', '正在读取服务器的 GPU…'],
  gpusSimulated: ['simulated GPU (%1)', '模拟 GPU(%1)'],
  gpusAbsent: [
    'The mgenv_jupyter server extension is not running on this server: enable it with ' +
      '`jupyter server extension enable mgenv_jupyter.server` and restart the server.',
    '此服务器没有运行 mgenv_jupyter 服务器扩展:请用 `jupyter server extension enable mgenv_jupyter.server` ' +
      '启用它,然后重启服务器。'
  ],
  gpusForbidden: ['The server does not let this page see its kernels.', '服务器不允许此页面查看其内核。'],
  gpusUnreachable: ['The server does not answer: %1', '服务器无应答:%1'],
  gpusNoDriver: ['No NVIDIA driver on the server: %1', '服务器上没有 NVIDIA 驱动:%1'],
  gpusNoGpu: ['NVML sees no GPU on the server.', 'NVML 在服务器上没有发现 GPU。'],
  gpusError: ['NVML error on the server: %1', '服务器上的 NVML 错误:%1'],
  gpusForeign: [
    'NVML lists its processes under pids that do not exist here: the server runs in a container with its own pid ' +
      'namespace, so NVML’s figures cannot be attributed to a notebook. A figure marked “own report” is what the ' +
      'kernel says its framework’s allocator reserved; the device figures are exact.',
    'NVML 列出的进程 ID 在此处不存在:服务器运行在拥有独立 PID 命名空间的容器中,因此无法把 NVML 的数值归属到笔记本。' +
      '标有“自报”的数值是内核报告的其框架分配器预留的显存;设备的数值是准确的。'
  ],
  gpusOwnReport: ['own report', '自报'],
  gpusOwnReportTitle: [
    'What the kernel says its framework’s allocator reserved on this GPU (NVML cannot attribute memory here)',
    '内核报告的其框架分配器在此 GPU 上预留的显存(此处 NVML 无法按进程归属显存)'
  ],
  gpusFigures: [
    'Each notebook’s figure is NVML’s memory of its kernel’s processes; the device’s used and total are NVML’s own.',
    '每个笔记本的数值是 NVML 统计的其内核进程占用的显存;设备的已用量和总量来自 NVML 本身。'
  ],
  gpusUsedOf: ['%1 of %2 used', '已用 %1 / 共 %2'],
  gpusFree: ['free', '空闲'],
  gpusFreeSize: ['%1 free', '空闲 %1'],
  gpusOther: ['other process', '其他进程'],
  gpusOtherMeta: ['pid %1 · %2 · %3', 'pid %1 · %2 · %3'],
  gpusOtherHidden: ['pid %1 · not visible here', 'pid %1 · 在此不可见'],
  gpusOtherTitle: [
    'A process that belongs to no kernel of this server: shown, never acted on.',
    '不属于此服务器任何内核的进程:仅显示,不可操作。'
  ],
  gpusUnlisted: ['not listed (driver, other containers)', '未列出(驱动、其他容器)'],
  gpusUnknown: ['unknown', '未知'],
  gpusIdleFor: ['idle for %1', '已空闲 %1'],
  gpusBusy: ['busy', '忙碌'],
  gpusStarting: ['starting', '启动中'],
  gpusSeconds: ['%1 s', '%1 秒'],
  gpusMinutes: ['%1 min', '%1 分钟'],
  gpusHours: ['%1 h', '%1 小时'],
  gpusDays: ['%1 d', '%1 天'],
  gpusNoNotebook: ['kernel %1 (no notebook)', '内核 %1(无笔记本)'],
  gpusOpenTitle: ['Open %1', '打开 %1'],
  gpusShutDown: ['Shut down', '关闭'],
  gpusInterrupt: ['Interrupt', '中断'],
  gpusShutDownTitle: ['Shut down the kernel of %1?', '关闭 %1 的内核?'],
  gpusShutDownBody: [
    'The kernel of %1 holds %2 on %3. Shutting it down frees that memory, and everything its cells defined is lost.',
    '%1 的内核在 %3 上占用 %2。关闭它会释放这些显存,其单元格定义的一切都会丢失。'
  ],
  gpusInterruptTitle: ['Interrupt the kernel of %1?', '中断 %1 的内核?'],
  gpusInterruptBody: [
    'The kernel of %1 holds %2 on %3. Interrupting stops the cell it is running; its variables and its memory stay.',
    '%1 的内核在 %3 上占用 %2。中断会停止它正在运行的单元格;其变量和显存保留。'
  ],
  gpusIdleKernels: ['Kernels holding no GPU memory', '未占用 GPU 显存的内核'],
  gpusActionFailed: ['The server refused: %1', '服务器拒绝了:%1'],
  oomHolderText: [
    'Shut down the kernel of %1 on this server: it holds %2 of this GPU',
    '关闭本服务器上 %1 的内核:它占用此 GPU 的 %2'
  ],
  oomHolderButton: ['Shut down…', '关闭…'],
  oomHolderTitle: [
    'Asks first, then shuts the kernel down through the server’s kernel API',
    '先确认,再通过服务器的内核接口关闭该内核'
  ],
  oomHolderDone: [
    'The kernel of %1 is shut down: its memory is free. Run the cell again.',
    '%1 的内核已关闭,其显存已释放。请重新运行该单元格。'
  ],
  oomHolderGone: ['That kernel is no longer running on this server.', '该内核已不在此服务器上运行。'],
  oomHolderFailed: ['The server could not be asked: %1', '无法询问服务器:%1']
} satisfies Record<string, [string, string]>;
