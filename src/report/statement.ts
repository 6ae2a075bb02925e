/**
 * The conformance statement of a run: for every clause of the spec, whether this target was judged on it (with
 * the counts of its verdicts), whether the clause does not apply to it (its document has no operation the
 * clause's checks apply to), or why it was not judged. Built from the verdicts and the suite's checks, never
 * typed in, so that an implementer sees at a glance which of the spec's promises were tested and which were not.
 */
import { SPEC_CLAUSES, specClausesOf, UNJUDGED_CLAUSES } from '../checks/core/clauses.js';
import { BUILT_IN_CHECKS } from '../checks/core/registry.js';
import { esc } from './escape.js';
import type { CheckResult, ClauseStatement, Results } from './results.js';

export type { ClauseStatement } from './results.js';

const JUDGED = new Set<CheckResult['status']>(['passed', 'failed', 'xfail', 'xpass']);

/**
 * Each clause's citing checks (the built-in ones, and any the run's own modules declared) and its verdicts, in
 * one pass over the registry and the results.
 */
function byClause(results: Pick<Results, 'checks'>) {
  const cited = new Map<string, { checks: Set<string>; rows: CheckResult[] }>(
    SPEC_CLAUSES.map((c) => [c, { checks: new Set(), rows: [] }]),
  );
  for (const check of BUILT_IN_CHECKS)
    for (const clause of specClausesOf(check.clause)) cited.get(clause)?.checks.add(check.id);
  for (const row of results.checks)
    for (const clause of specClausesOf(row.clause)) {
      cited.get(clause)?.checks.add(row.check);
      cited.get(clause)?.rows.push(row);
    }
  return cited;
}

/** The most common skip reason among the verdicts, saying how many others there are. */
function commonReason(rows: CheckResult[]): string {
  const reasons = new Map<string, number>();
  for (const r of rows) {
    const reason = r.message ?? 'no reason given';
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  const [reason, n] = [...reasons].sort((a, b) => b[1] - a[1])[0]!;
  return rows.length > n ? `${reason} (and ${reasons.size - 1} other reason(s))` : reason;
}

export function conformanceStatement(results: Pick<Results, 'checks' | 'notSelected'>): ClauseStatement[] {
  const cited = byClause(results);
  const left = new Set(results.notSelected?.checks ?? []);
  return SPEC_CLAUSES.map((clause): ClauseStatement => {
    const { checks: citingChecks, rows } = cited.get(clause)!;
    const checks = [...citingChecks].sort();
    const counts: ClauseStatement['counts'] = {};
    for (const r of rows) counts[r.status] = (counts[r.status] ?? 0) + 1;
    const base = { clause, checks, counts };
    if (rows.some((r) => JUDGED.has(r.status))) return { ...base, standing: 'judged' };
    if (checks.length === 0)
      return { ...base, standing: 'not judged', why: UNJUDGED_CLAUSES[clause] ?? 'no check of the suite cites it' };
    if (rows.length) return { ...base, standing: 'not judged', why: commonReason(rows) };
    if (checks.every((id) => left.has(id)))
      return { ...base, standing: 'not judged', why: "the run's selection left out its checks" };
    return {
      ...base,
      standing: 'not applicable',
      why: `the document has no operation its checks apply to (${checks.join(', ')})`,
    };
  });
}

const countsText = (counts: ClauseStatement['counts']) =>
  Object.entries(counts)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');

/** The statement in the terminal: one line a clause. */
export function statementLines(statement: ClauseStatement[]): string[] {
  const judged = statement.filter((s) => s.standing === 'judged').length;
  return [
    `conformance statement: ${judged} of ${statement.length} clauses of the spec judged`,
    ...statement.map(
      (s) =>
        `  §${s.clause.padEnd(15)} ${s.standing.padEnd(15)} ${s.standing === 'judged' ? countsText(s.counts) : (s.why ?? '')}`,
    ),
  ];
}

/** The statement on page one: a table, a row a clause. */
export function statementHtml(statement: ClauseStatement[]): string {
  const rows = statement.map(
    (s) =>
      `<tr class="standing-${s.standing.replace(' ', '-')}"><td style="white-space:nowrap">§${esc(s.clause)}</td><td>${esc(s.standing)}</td><td>${esc(
        s.standing === 'judged' ? countsText(s.counts) : (s.why ?? ''),
      )}</td><td>${esc(s.checks.join(', '))}</td></tr>`,
  );
  return `<table data-testid="statement"><thead><tr><th>clause</th><th>standing</th><th>verdicts, or why</th><th>checks</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
