/**
 * `conformance baseline verify`: whether each entry of a baseline still says what the target does, read
 * from a run of the suite against it (the run sends each entry's replay, so a deviation a seed may miss is
 * met in every run). Per entry and per operation it names:
 * - reproduced: the check failed there with a failure the entry excuses (its kind and key), and, where the
 *   key names an input class, the entry's replay is of that class and the run judged it, the replay showed it
 *   (two entries of one key are two causes, each with its own replay: another cause's request showing the key
 *   says nothing of this one);
 * - different: the check failed there with the entry's kind, but not with its key, and no other entry of the
 *   baseline excuses that failure (what showed is listed);
 * - not reproduced: the check passed there, or failed only otherwise;
 * - not judged: the run has no verdict of the check there (not selected, skipped, another database's entry).
 * An intermittent entry not reproduced is reported as such, not as stale. An entry whose failure depends on
 * a generated input (key `… generated`) and that has no replay cannot be met by every seed: it is listed.
 */
import {
  appliesTo,
  covers,
  entryName,
  excuses,
  showsEntry,
  type Baseline,
  type BaselineEntry,
} from '../baseline/entries.js';
import type { CheckResult, Results } from './results.js';

export type VerifyOutcome = 'reproduced' | 'different' | 'not reproduced' | 'not judged';

export interface OperationOutcome {
  operation: string;
  outcome: VerifyOutcome;
  /** For `different`: the kinds and keys the check failed with there. */
  showed?: string[];
  /** For `not reproduced` where the entry's key showed: its replay did not show it, other requests did. */
  note?: string;
}

export interface EntryVerification {
  entry: string;
  check: string;
  kind: string;
  key: string;
  intermittent: boolean;
  /** How often an intermittent entry showed, where its entry says. */
  rate?: string;
  /** Which request of every run shows an entry without a replay, or why none can (BaselineEntry.shownBy). */
  shownBy?: string;
  /** Why the run could not meet it in every seed: a generated input, and neither a replay nor a request that shows it. */
  seedDependent: boolean;
  operations: OperationOutcome[];
  /** The entry's verdict over its operations: the worst one judged. */
  outcome: VerifyOutcome;
}

const JUDGED: ReadonlySet<CheckResult['status']> = new Set(['passed', 'failed', 'xfail', 'xpass']);

const BY_OTHERS = 'its replay was judged and did not show it; other requests showed the same key';

function outcomeOn(
  e: BaselineEntry,
  result: CheckResult | undefined,
  others: BaselineEntry[],
  label?: string,
): Omit<OperationOutcome, 'operation'> {
  if (!result || !JUDGED.has(result.status) || !appliesTo(e, label)) return { outcome: 'not judged' };
  const failures = result.status === 'failed' || result.status === 'xfail' ? (result.failures ?? []) : [];
  // As the gate reads it: a server error's failure whose fields include the entry's is the entry's.
  if (failures.some((f) => excuses(e, f)))
    return showsEntry(e, result) ? { outcome: 'reproduced' } : { outcome: 'not reproduced', note: BY_OTHERS };
  // A failure another entry of the operation excuses is that entry's showing: of this one it says nothing.
  const unexcused = failures.filter((f) => !others.some((o) => excuses(o, f)));
  if (!unexcused.some((f) => f.kind === e.kind)) return { outcome: 'not reproduced' };
  return { outcome: 'different', showed: unexcused.map((f) => `${f.kind} ${f.key}`) };
}

/** Worst first: an entry is as good as its worst judged operation. */
const ORDER: VerifyOutcome[] = ['not reproduced', 'different', 'reproduced', 'not judged'];

export function verifyBaseline(
  baseline: Baseline,
  results: Pick<Results, 'checks'> & { target?: { label?: string } },
): EntryVerification[] {
  const label = results.target?.label;
  return baseline.entries.map((e) => {
    const named = e.operation === '*' ? undefined : Array.isArray(e.operation) ? e.operation : [e.operation];
    const ofCheck = results.checks.filter((c) => c.id === e.check && covers(e, c.operation));
    // An entry for every operation is verified where the run judged its check.
    const resultOn = (operation: string) => ofCheck.find((c) => c.operation === operation);
    const othersOn = (operation: string) =>
      baseline.entries.filter((o) => o !== e && o.check === e.check && covers(o, operation) && appliesTo(o, label));
    const operations = (named ?? [...new Set(ofCheck.map((c) => c.operation))]).map((operation) => ({
      operation,
      ...outcomeOn(e, resultOn(operation), othersOn(operation), label),
    }));
    const outcomes = operations.map((o) => o.outcome);
    return {
      entry: entryName(e),
      check: e.check,
      kind: e.kind,
      key: e.key,
      intermittent: Boolean(e.intermittent),
      ...(typeof e.intermittent === 'string' ? { rate: e.intermittent } : {}),
      ...(e.shownBy ? { shownBy: e.shownBy } : {}),
      seedDependent: / generated/.test(e.key) && !e.replay && !e.shownBy,
      operations,
      outcome: ORDER.find((o) => outcomes.includes(o)) ?? 'not judged',
    };
  });
}

/**
 * Entries that no longer say what the target does: not reproduced, or shown otherwise. Not an intermittent
 * one: that its failure did not show this time is what it says, whether the check passed there or failed
 * otherwise (a response names only its first mismatch, and another entry's came first).
 */
export const staleEntries = (verified: EntryVerification[]): EntryVerification[] =>
  verified.filter((v) => !v.intermittent && (v.outcome === 'different' || v.outcome === 'not reproduced'));

export function verificationMarkdown(verified: EntryVerification[], baselineFile: string): string {
  const count = (o: VerifyOutcome) => verified.filter((v) => v.outcome === o).length;
  const lines = [
    `# Baseline verified: ${baselineFile}`,
    '',
    `${verified.length} entries: ${ORDER.map((o) => `${count(o)} ${o}`).join(', ')}.`,
    '',
    '| entry | outcome | per operation |',
    '|---|---|---|',
  ];
  for (const v of verified) {
    const per = v.operations
      .filter((o) => o.outcome !== v.outcome || v.operations.length === 1)
      .map(
        (o) =>
          `${o.operation}: ${o.outcome}${o.showed ? ` (${o.showed.join('; ')})` : ''}${o.note ? ` (${o.note})` : ''}`,
      )
      .join('<br>');
    const notes = [
      v.intermittent ? `intermittent${v.rate ? `: ${v.rate}` : ''}` : '',
      v.seedDependent ? 'a generated input without a replay' : '',
      v.shownBy ? `shown by ${v.shownBy}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    lines.push(
      `| ${v.entry.replace(/\|/g, '\\|')} | ${v.outcome}${notes ? ` (${notes})` : ''} | ${per.replace(/\|/g, '\\|') || `all ${v.operations.length}`} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
