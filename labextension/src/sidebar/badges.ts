/**
 * A variable's status (the kernel's words, from "state" and "changed") → the badge the sidebar shows.
 * The kernel's status strings are the contract (mgenv_jupyter/runtime: Outcome values and EnvSession._status);
 * any status not listed here is still shown, as a neutral badge with the kernel's own words.
 */
import { Language } from './text';

export type BadgeKind = 'effective' | 'pending' | 'already-read' | 'live' | 'latched' | 'dead' | 'option' | 'unset' | 'other';

export interface Badge {
  kind: BadgeKind;
  label: string;
}

const BADGES: Record<string, [BadgeKind, string, string]> = {
  'effective now': ['effective', 'effective', '已生效'],
  'in effect': ['effective', 'effective', '已生效'],
  'pending import': ['pending', 'pending import', '待导入时生效'],
  'takes effect at import': ['pending', 'pending import', '待导入时生效'],
  'pending first use': ['pending', 'pending first use', '待首次使用时生效'],
  'takes effect at first use': ['pending', 'pending first use', '待首次使用时生效'],
  'already read, restart needed': ['already-read', 'already read, restart needed', '已被读取,需重启'],
  'applied live': ['live', 'applied live', '已实时应用'],
  'may already be latched': ['latched', 'may already be latched', '可能已被锁定'],
  'no longer read': ['dead', 'no longer read', '已不再读取'],
  'NPURunConfig option': ['option', 'NPURunConfig option', 'NPURunConfig 选项'],
  unset: ['unset', 'unset', '未设置']
};

export function badgeFor(status: string, language: Language = 'en'): Badge {
  const known = BADGES[status];
  if (!known) {
    return { kind: 'other', label: status };
  }
  return { kind: known[0], label: language === 'zh' ? known[2] : known[1] };
}
