/** A Markdown summary of a run, for a CI step summary ($GITHUB_STEP_SUMMARY and the like). */
import { gateVerdict, identityLines, type Results, targetHeading } from './results.js';

function countsTable(heading: string, rows: Record<string, Record<string, number>>): string[] {
  return [
    `| ${heading} | passed | failed | xfail | xpass | skipped | error |`,
    '|---|---|---|---|---|---|---|',
    ...Object.entries(rows).map(
      ([name, c]) =>
        `| ${name} | ${c.passed ?? 0} | ${c.failed ?? 0} | ${c.xfail ?? 0} | ${c.xpass ?? 0} | ${c.skipped ?? 0} | ${c.error ?? 0} |`,
    ),
  ];
}

export function markdownSummary(results: Results): string {
  const s = results.summary;
  const gate = gateVerdict(results);
  const identity = identityLines(results);
  const lines = [
    `## Conformance: ${targetHeading(results.target)}`,
    '',
    `${gate.pass ? '✅ PASS' : '❌ FAIL'}: ${gate.reasons.join('; ')}`,
    '',
    `${s.failed} new failure(s) · ${s.xfail} known deviation(s) (baseline) · ${s.xpass} fixed (xpass) · seed \`${results.seed}\` · ${(results.durationMs / 1000).toFixed(1)} s · ${s.requests} requests`,
    '',
    ...identity.map((line) => `- ${line}`),
    ...(identity.length ? [''] : []),
    ...countsTable('family', s.byFamily),
    '',
    ...countsTable('level', s.byLevel),
  ];
  const broken = results.checks.filter((c) => c.status === 'failed' || c.status === 'xpass');
  if (broken.length) {
    lines.push('', '### Failures', '');
    for (const c of broken.slice(0, 50))
      lines.push(
        `- **${c.status === 'xpass' ? 'XPASS' : c.level}** \`${c.id}\` ${c.operation}: ${(c.message ?? '').replace(/\n/g, ' ').slice(0, 300)}`,
      );
    if (broken.length > 50) lines.push(`- … and ${broken.length - 50} more in results.json`);
  }
  if (s.error) lines.push('', `> ${s.error} check(s) could not be judged: the target stopped answering`);
  for (const e of results.errors ?? []) lines.push('', `> ${e}`);
  return `${lines.join('\n')}\n`;
}
