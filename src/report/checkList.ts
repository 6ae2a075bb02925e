/** The registry as people and tools read it: `conformance checks` (JSON) and docs/checks.md (Markdown). */
import type { Check } from '../checks/core/check.js';
import { clauseLevels, clauseText } from '../checks/core/clauses.js';
import { PROMISES_4_1 } from '../checks/core/promises.js';

export interface CheckListing {
  id: string;
  family: string;
  level: string;
  clause: string;
  title: string;
  /** For a check with one verdict per case of an operation: how its verdicts are named. */
  variants?: string;
}

export function checkListing(checks: readonly Check[]): CheckListing[] {
  return checks.map((c) => ({
    id: c.id,
    family: c.family,
    level: c.level,
    clause: c.clause,
    title: c.title,
    ...(c.variants ? { variants: `${c.id}[<case>], one per case of the operation` } : {}),
  }));
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function checkListMarkdown(checks: readonly Check[]): string {
  const lines = [
    '# Checks',
    '',
    '<!-- Generated from the check registry (src/checks/core/registry.ts) by `npm run docs:checks`; a test keeps it current. -->',
    '',
    `${checks.length} checks. Each has a stable id (reports, baselines and comparisons key on it), the clause it enforces, and`,
    "the level that clause's first source gives it: an RFC's keyword (RFC 9110 §15.5.6's MUST is a MUST); the spec's rules,",
    'stated as facts of the API, MUST, its "may" and "can" MAY, its "avoided" SHOULD; the target\'s own document and profile',
    'MUST. Where the sources leave a rule open, the clause says so first (`open: ...`) with why the suite reports it as',
    'SHOULD or MAY rather than gating on it. A failure carries a kind and a key (docs/reports.md, "Typed failures").',
  ];
  const families = [...new Set(checks.map((c) => c.family))];
  for (const family of families) {
    lines.push('', `## ${family}`, '', '| id | level | clause | title |', '|---|---|---|---|');
    for (const c of checks.filter((x) => x.family === family)) {
      const id = c.variants ? `\`${c.id}[<case>]\`` : `\`${c.id}\``;
      lines.push(`| ${id} | ${c.level} | ${cell(c.clause)} | ${cell(c.title)} |`);
    }
  }
  lines.push('', '## The promises of §4.1', '', '| promise | held by | note |', '|---|---|---|');
  for (const p of PROMISES_4_1)
    lines.push(`| ${cell(p.promise)} | ${p.heldBy.map((id) => `\`${id}\``).join(', ')} | ${cell(p.note ?? '')} |`);
  lines.push(
    '',
    "## The spec's clauses and their levels",
    '',
    "The spec writes no RFC 2119 keywords: each level below is the suite's reading of its words, and a check citing",
    'a clause first has that level (a unit test holds each check to it).',
    '',
    '| clause | level | why |',
    '|---|---|---|',
  );
  for (const { clause, level, why } of clauseLevels()) lines.push(`| §${clause} | ${level} | ${cell(why)} |`);
  lines.push('', '## Clauses', '', '| clause | the words it names |', '|---|---|');
  for (const clause of [...new Set(checks.map((c) => c.clause))].sort())
    lines.push(`| ${cell(clause)} | ${cell(clauseText(clause))} |`);
  return `${lines.join('\n')}\n`;
}
