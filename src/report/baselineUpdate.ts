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
import type { FailureKind } from '../checks/core/verdict.js';
import {
  appliesTo,
  covers,
  excuses,
  showsEntry,
  type Baseline,
  type BaselineEntry,
  type LegacyEntry,
} from '../baseline/entries.js';
import type { CheckResult, Results } from './results.js';

export const REASON_TO_WRITE = 'TO WRITE: why this is a deviation of the target, not a bug of the suite';

const JUDGED: ReadonlySet<CheckResult['status']> = new Set(['passed', 'failed', 'xfail', 'xpass']);

/** An entry with its fields in the order people read them. */
function keyed(e: LegacyEntry, operation: BaselineEntry['operation'], kind: FailureKind, key: string): BaselineEntry {
  const { check, reason, harmsOthers, evidence, replay, shownBy, intermittent, onlyOn, expires } = e;
  return JSON.parse(
    JSON.stringify({
      check,
      operation,
      kind,
      key,
      reason,
      harmsOthers,
      evidence,
      replay,
      shownBy,
      intermittent,
      onlyOn,
      expires,
    }),
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
  for (const e of previous.entries) carryOver(e, judged, results, { push: (x) => entries.push(x), add });
  for (const c of judged) for (const f of failuresOf(c)) if (!accountedFor(c, f)) add(newEntry(c, f));
  // The file's other fields (target, a comment) stay as they were; the release is the run's, where it knows it.
  const { entries: _old, ...rest } = previous;
  const release = releaseOf(previous, results);
  return { ...rest, ...(release ? { release } : {}), entries };
}

/**
 * An entry of the previous baseline, as the run leaves it: kept, kept over fewer operations, named failure by
 * failure (an old keyless entry the run judged), or retired (its failure did not show where the run judged it).
 */
function carryOver(
  e: LegacyEntry,
  judged: CheckResult[],
  results: Partial<Pick<Results, 'target' | 'selection'>>,
  out: { push(e: BaselineEntry): void; add(e: BaselineEntry): void },
): void {
  const onTarget = appliesTo(e, results.target?.label);
  const relevant = judged.filter((c) => c.id === e.check && covers(e, c.operation));
  // A `*` entry speaks of operations a selected run did not cover: only a run of the whole document retires it.
  const retirable = onTarget && relevant.length > 0 && (e.operation !== '*' || !results.selection);
  if (!e.kind || !e.key) {
    if (!retirable) {
      out.push(e as BaselineEntry);
      return;
    }
    // An old entry excused every failure of its check there: name each one it excused in this run.
    for (const c of relevant)
      for (const f of failuresOf(c)) out.add(keyed(e, e.operation === '*' ? '*' : c.operation, f.kind, f.key));
    return;
  }
  // As baseline verify reads it: an entry of a key two causes share shows only where its own replay did.
  const showsIt = (c: CheckResult) => showsEntry(e as BaselineEntry, { ...c, failures: failuresOf(c) });
  const shown = relevant.some(showsIt);
  if (!shown && retirable && !e.intermittent) return;
  // An entry over a list of operations keeps those where the run showed it or did not judge it: an
  // operation judged without the failure has lost the deviation, and the entry would report it as xpass.
  if (Array.isArray(e.operation) && retirable && !e.intermittent) {
    const lost = new Set(relevant.filter((c) => !showsIt(c)).map((c) => c.operation));
    const kept = e.operation.filter((op) => !lost.has(op));
    out.push({ ...(e as BaselineEntry), operation: kept.length === 1 ? kept[0] : kept });
  } else out.push(e as BaselineEntry);
}

/** A new entry for a failure no entry speaks for, with its evidence (the first failure's exchange). */
function newEntry(c: CheckResult, f: ReturnType<typeof failuresOf>[number]): BaselineEntry {
  const ev = c.evidence[0];
  return {
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
  };
}

/** The release the baseline speaks of: the run's version and operations, where the run knows them. */
function releaseOf(
  previous: Pick<Baseline, 'release'>,
  results: Partial<Pick<Results, 'target' | 'operations'>>,
): Baseline['release'] {
  const version = results.target?.serverVersion;
  if (!version || !results.operations?.length) return previous.release;
  return {
    ...previous.release,
    version,
    operations: results.operations.map((op) => `${op.method} ${op.path}`).sort(),
  };
}
