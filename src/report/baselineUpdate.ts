/**
 * `conformance baseline update`: a new baseline from a run, for review as a diff.
 * - An entry whose failure showed again keeps what it had (reason, evidence, replay, onlyOn, expires).
 * - A failure no entry names gets a keyed entry with its evidence and a reason to write.
 * - An entry the run judged and did not see fail is left out (the deviation is gone), unless it is
 *   intermittent; an entry over a list of operations loses those where it was judged and did not fail.
 * - An entry the run did not judge stays as it is: another target's (onlyOn), or a check or operation
 *   outside the run's selection, or not judged (skipped, error).
 * - An entry of an older baseline that names no kind and key becomes one keyed entry per failure it
 *   excused in this run, each keeping the old reason and evidence.
 */
import type { FailureKind } from '../checks/verdict.js';
import {
  appliesTo,
  covers,
  excuses,
  showsEntry,
  type Baseline,
  type BaselineEntry,
  type LegacyEntry,
} from './baseline.js';
import type { CheckResult, Results } from './results.js';

export const REASON_TO_WRITE = 'TO WRITE: why this is a deviation of the target, not a bug of the suite';

const JUDGED: ReadonlySet<CheckResult['status']> = new Set(['passed', 'failed', 'xfail', 'xpass']);

/** An entry with its fields in the order people read them. */
function keyed(e: LegacyEntry, operation: BaselineEntry['operation'], kind: FailureKind, key: string): BaselineEntry {
  const { check, reason, evidence, replay, shownBy, intermittent, onlyOn, expires } = e;
  return JSON.parse(
    JSON.stringify({ check, operation, kind, key, reason, evidence, replay, shownBy, intermittent, onlyOn, expires }),
  ) as BaselineEntry;
}

const failuresOf = (c: CheckResult) => (c.status === 'failed' || c.status === 'xfail' ? (c.failures ?? []) : []);

export function updatedBaseline(
  previous: Omit<Baseline, 'entries'> & { entries: LegacyEntry[] },
  results: Pick<Results, 'checks'> & Partial<Pick<Results, 'target' | 'selection' | 'operations'>>,
): Baseline {
  const judged = results.checks.filter((c) => JUDGED.has(c.status));
  const entries: BaselineEntry[] = [];
  const add = (e: BaselineEntry) => {
    const same = (o: BaselineEntry) =>
      o.check === e.check &&
      JSON.stringify(o.operation) === JSON.stringify(e.operation) &&
      excuses(o, e) &&
      o.onlyOn === e.onlyOn;
    if (!entries.some(same)) entries.push(e);
  };
  // A failure an entry of this target already speaks for: one that names it, or an old keyless one for its check there.
  const accountedFor = (c: CheckResult, f: { kind: FailureKind; key: string }) =>
    previous.entries.some(
      (e) =>
        e.check === c.id &&
        covers(e, c.operation) &&
        appliesTo(e, results.target?.label) &&
        (!e.kind || excuses(e as BaselineEntry, f)),
    );

  for (const e of previous.entries) {
    const onTarget = appliesTo(e, results.target?.label);
    const relevant = judged.filter((c) => c.id === e.check && covers(e, c.operation));
    // A `*` entry speaks of operations a selected run did not cover: only a run of the whole document retires it.
    const retirable = onTarget && relevant.length > 0 && (e.operation !== '*' || !results.selection);
    if (!e.kind || !e.key) {
      if (!retirable) {
        entries.push(e as BaselineEntry);
        continue;
      }
      // An old entry excused every failure of its check there: name each one it excused in this run.
      for (const c of relevant)
        for (const f of failuresOf(c)) add(keyed(e, e.operation === '*' ? '*' : c.operation, f.kind, f.key));
      continue;
    }
    // As baseline verify reads it: an entry of a key two causes share shows only where its own replay did.
    const showsIt = (c: CheckResult) => showsEntry(e as BaselineEntry, { ...c, failures: failuresOf(c) });
    const shown = relevant.some(showsIt);
    if (!shown && retirable && !e.intermittent) continue;
    // An entry over a list of operations keeps those where the run showed it or did not judge it: an
    // operation judged without the failure has lost the deviation, and the entry would report it as xpass.
    if (Array.isArray(e.operation) && retirable && !e.intermittent) {
      const lost = new Set(relevant.filter((c) => !showsIt(c)).map((c) => c.operation));
      const kept = e.operation.filter((op) => !lost.has(op));
      entries.push({ ...(e as BaselineEntry), operation: kept.length === 1 ? kept[0] : kept });
    } else entries.push(e as BaselineEntry);
  }

  for (const c of judged)
    for (const f of failuresOf(c)) {
      if (accountedFor(c, f)) continue;
      const ev = c.evidence[0];
      add({
        check: c.id,
        operation: c.operation,
        kind: f.kind,
        key: f.key,
        reason: REASON_TO_WRITE,
        evidence:
          ev && f === c.failures?.[0]
            ? {
                request: `${ev.request.method} ${ev.request.url} ${ev.request.body ?? ''}`.trim(),
                response: `${ev.response.status} ${ev.response.body.slice(0, 300)}`,
              }
            : { response: f.message.slice(0, 300) },
      });
    }
  // The file's other fields (target, a comment) stay as they were; the release is the run's, where it knows it.
  const { entries: _old, ...rest } = previous;
  const version = results.target?.serverVersion;
  const release =
    version && results.operations?.length
      ? {
          ...previous.release,
          version,
          operations: results.operations.map((op) => `${op.method} ${op.path}`).sort(),
        }
      : previous.release;
  return { ...rest, ...(release ? { release } : {}), entries };
}
