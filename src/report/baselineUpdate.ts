/**
 * `conformance baseline update`: a new baseline from a run, for review as a diff. Entries still failing
 * keep what they had (reason, evidence, replay, onlyOn, expires); a new failure gets an entry with its
 * evidence and a reason to write; an entry whose check now passes (xpass) is left out.
 */
import type { Baseline, BaselineEntry } from './baseline.js';
import type { Results } from './results.js';

export const REASON_TO_WRITE = 'TO WRITE: why this is a deviation of the target, not a bug of the suite';

export function updatedBaseline(previous: Baseline, results: Pick<Results, 'checks'>): Baseline {
  const entries: BaselineEntry[] = [];
  const kept = new Set<BaselineEntry>();
  for (const c of results.checks) {
    if (c.status !== 'failed' && c.status !== 'xfail') continue;
    const old = previous.entries.find((e) => e.check === c.id && (e.operation === c.operation || e.operation === '*'));
    if (old) {
      if (!kept.has(old)) entries.push(old);
      kept.add(old);
      continue;
    }
    const ev = c.evidence[0];
    entries.push({
      check: c.id,
      operation: c.operation,
      reason: REASON_TO_WRITE,
      evidence: ev ? { request: `${ev.request.method} ${ev.request.url} ${ev.request.body ?? ''}`.trim(), response: `${ev.response.status} ${ev.response.body.slice(0, 300)}` } : { response: c.message },
    });
  }
  // Entries for another target (onlyOn) were not judged by this run: they stay as they are.
  for (const e of previous.entries) if (e.onlyOn && !kept.has(e) && !entries.includes(e) && !results.checks.some((c) => c.id === e.check && (c.operation === e.operation || e.operation === '*') && c.status === 'xpass')) entries.push(e);
  return { ...previous, entries };
}
