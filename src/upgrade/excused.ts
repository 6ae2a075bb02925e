/**
 * The second release's baseline applied to an upgrade: an entry of check `upgrade.data-survives` names a loss
 * (kind `upgrade.lost`, key the collection) or a changed field (kind `upgrade.changed`, key
 * `<collection>.<field>`); its operation names the read that shows it (`GET /flow_runs/{id}`).
 */
import { appliesTo, isExpired, type Baseline, type BaselineEntry } from '../baseline/entries.js';
import type { UpgradeReport } from '../report/results.js';

/** The check id upgrade entries carry. */
export const UPGRADE_CHECK = 'upgrade.data-survives';

const named = (e: BaselineEntry) =>
  `${Array.isArray(e.operation) ? e.operation.join(', ') : e.operation} ${e.kind} ${e.key}: ${e.reason}`;

/** The report with each loss and change that an entry of `baseline` names marked excused by it. */
export function excuseUpgrade(report: UpgradeReport, baseline: Baseline, label?: string): UpgradeReport {
  const entries = baseline.entries.filter((e) => e.check === UPGRADE_CHECK && !isExpired(e) && appliesTo(e, label));
  // The key names the collection (and field): the entry's operation says which read shows it, for the reader.
  const find = (kind: string, key: string) => entries.find((e) => e.kind === kind && e.key === key);
  return {
    ...report,
    collections: report.collections.map((c) => ({
      ...c,
      lost: c.lost.map((l) => {
        const entry = find('upgrade.lost', c.collection);
        return entry ? { ...l, excusedBy: named(entry) } : l;
      }),
      changed: c.changed.map((f) => {
        const entry = find('upgrade.changed', `${c.collection}.${f.field}`);
        return entry ? { ...f, excusedBy: named(entry) } : f;
      }),
    })),
  };
}
