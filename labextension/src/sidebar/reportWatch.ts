/**
 * The sidebar's model as an out-of-memory report under a cell sees it (oom/report.ts ReportWatch): the followed
 * kernel's last report and variables, and when they change. A report of a notebook the sidebar does not follow learns
 * nothing from it, and its buttons still reach its own kernel (shared/kernelChannel.ts).
 */
import type { NotebookPanel } from '@jupyterlab/notebook';

import { ReportWatch } from '../oom/report';
import { EnvModel, ModelChange } from './model';

/** The sidebar's model as a rendered report sees it: the followed kernel's last report and variables, and changes. */
export function reportWatch(model: EnvModel, follows: (notebook: NotebookPanel) => boolean): ReportWatch {
  return {
    latest: reportId => (model.lastOom?.id === reportId ? model.lastOom : null),
    holds: (name, value) => model.variable(name)?.value === value,
    stale: (notebook, reportId) => {
      const last = model.lastReportId;
      return last !== undefined && last !== reportId && follows(notebook);
    },
    changed: callback => {
      const listener = (_: EnvModel, change: ModelChange): void => {
        if (change.kind === 'oom' || change.kind === 'variables') {
          callback();
        }
      };
      model.changed.connect(listener);
      return () => void model.changed.disconnect(listener);
    }
  };
}
