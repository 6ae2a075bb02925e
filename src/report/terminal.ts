/** The terminal summary: counts by family and by level, then each failure with the curl line that repeats it. */
import { upgradeLines } from './upgradeReport.js';
import {
  curlNote,
  exitCodeOf,
  gateVerdict,
  identityLines,
  madeForNamesLine,
  type Results,
  targetHeading,
  timeTaken,
} from './results.js';
import { skipReasons } from './grouping.js';
import { conformanceStatement, statementLines } from './statement.js';

/** How many skip reasons the terminal lists; page one lists them all. */
const SKIP_REASONS_SHOWN = 6;

/** Why checks were skipped, with the fix each reason names, as page one's table gives them; read-only mode's in one line. */
function skipLines(results: Results): string[] {
  const readOnly = results.checks.filter((c) => c.status === 'skipped' && c.message?.includes('read-only mode'));
  const reasons = [
    ...(readOnly.length
      ? [
          {
            count: readOnly.length,
            reason: 'read-only mode: what needs a write is not judged (a run without --read-only judges it)',
          },
        ]
      : []),
    ...skipReasons(results.checks.filter((c) => !c.message?.includes('read-only mode'))).map(({ reason, checks }) => ({
      count: checks.length,
      reason,
    })),
  ].sort((a, b) => b.count - a.count);
  if (reasons.length === 0) return [];
  const more = reasons.length - SKIP_REASONS_SHOWN;
  return [
    'skipped, by reason:',
    ...reasons.slice(0, SKIP_REASONS_SHOWN).map(({ count, reason }) => `  ${String(count).padStart(5)}  ${reason}`),
    ...(more > 0 ? [`  and ${more} more reason(s) on index.html's page one`] : []),
  ];
}

export function terminalSummary(results: Results): string {
  const lines: string[] = [];
  const s = results.summary;
  lines.push(
    `conformance: ${targetHeading(results.target)} at ${results.target.baseUrl} (OpenAPI ${results.target.openapi}, profile ${results.target.profile}), seed ${results.seed}`,
  );
  const exercised = results.operations.filter((o) => o.exercised).length;
  const reached = results.operations.filter((o) => o.reached2xx).length;
  lines.push(
    `operations: ${results.operations.length} in the document, ${exercised} exercised, ${reached} reached 2xx; ${s.requests} requests in ${(results.durationMs / 1000).toFixed(1)} s`,
  );
  for (const line of identityLines(results)) lines.push(line);
  if (results.upgrade) lines.push(...upgradeLines(results.upgrade));
  const countsLine = (name: string, counts: Record<string, number>) =>
    `  ${name.padEnd(14)} ${Object.entries(counts)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}`;
  for (const [family, counts] of Object.entries(s.byFamily)) lines.push(countsLine(family, counts));
  for (const [level, counts] of Object.entries(s.byLevel)) lines.push(countsLine(level, counts));
  lines.push(...skipLines(results));
  lines.push(...statementLines(results.statement ?? conformanceStatement(results)));
  const failing = results.checks.filter((c) => c.status === 'failed' || c.status === 'xpass');
  const note = curlNote(results);
  if (note && failing.some((c) => c.repro)) lines.push(note);
  for (const c of failing) {
    lines.push(`${c.status === 'xpass' ? 'XPASS' : 'FAIL'} [${c.level}] ${c.id} ${c.operation}: ${c.message ?? ''}`);
    if (c.repro) lines.push(`  ${c.repro}`);
    if (c.reproNote) lines.push(`  (${c.reproNote})`);
    if (c.replay) lines.push(`  replay: ${c.replay}`);
  }
  const unjudged = results.checks.filter((c) => c.status === 'error');
  if (unjudged.length)
    lines.push(`ERROR ${unjudged.length} check(s) could not be judged: ${unjudged[0].message ?? ''}`);
  if (results.cleanup) {
    const c = results.cleanup;
    lines.push(
      `cleanup: ${c.deleted} deleted, ${c.alreadyGone} already gone, ${c.failed.length} failed, ${c.notDeletable.length} not deletable through the API`,
    );
    for (const f of c.failed) lines.push(`  could not delete ${f.collection} ${f.id}: ${f.reason}`);
    for (const e of c.sideEffects ?? [])
      lines.push(
        `  made by the server during the run (${e.why}): ${e.path}, ${e.deleted ? 'deleted' : `left: ${e.reason}`}`,
      );
    if (c.madeForNames) lines.push(`  ${madeForNamesLine(c.madeForNames)}`);
  }
  for (const e of results.errors ?? []) lines.push(`ERROR ${e}`);
  const spent = results.timing?.timeBox.spent;
  if (spent) {
    // Where the time went, so that a user of a slow target sees which family waited on it.
    const slowest = Object.entries(results.timing!.latency)
      .sort(([, a], [, b]) => timeTaken(b) - timeTaken(a))
      .slice(0, 3)
      .map(
        ([by, l]) =>
          `${by} ${l.requests} requests, ${l.seconds} s${l.retried ? ` and ${l.retrySeconds} s before ${l.retried} retried answers` : ''}, p95 ${l.p95Ms} ms`,
      );
    const pacing = results.timing?.pacing;
    const waited = pacing?.waitedMs
      ? `; ${pacing.rateLimited} answer(s) 429 and ${(pacing.waitedMs / 1000).toFixed(1)} s of waiting for the target's rate limits${pacing.maxRate ? ' and --max-rate' : ''}`
      : '';
    lines.push(
      `${spent.reason}: ${s.notRun ?? 0} check(s) not run; the target's time went to ${slowest.join('; ')}${waited}`,
    );
  }
  lines.push(
    `${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped${s.notRun ? ` (${s.notRun} not run)` : ''}, ${s.xfail} xfail, ${s.xpass} xpass${s.error ? `, ${s.error} error` : ''}`,
  );
  return lines.join('\n');
}

/**
 * The gate's verdict and its rule, the run's last line: the one summary.md, page one and the exit code give
 * (gateVerdict), where people look first.
 */
export function verdictLine(results: Results): string {
  const gate = gateVerdict(results);
  return `${gate.pass ? 'PASS' : 'FAIL'} (exit ${results.exitCode ?? exitCodeOf(results)}): ${gate.reasons.join('; ')}`;
}
