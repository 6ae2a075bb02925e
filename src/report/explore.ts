/**
 * What `explore` keeps of its seeds: each failure no baseline entry excused and no earlier seed of the session
 * met (its failure key: check, operation, kind and key), with the seed that met it and the lines that show it
 * again; and what it writes of them: the findings report (new apart from known, in docs/findings.md's form) and
 * a baseline draft of the new ones.
 */
import type { BaselineEntry } from '../baseline/entries.js';
import type { CheckResult, Results } from './results.js';

/** What explore writes in its folder: SUITE_NAMES has them (report/publish.ts), so that a run there clears them. */
export const EXPLORE_NAMES = ['explore.md', 'explore.json', 'explore-baseline.json', 'seeds'] as const;

export interface Finding {
  check: string;
  level: string;
  operation: string;
  kind: string;
  key: string;
  message: string;
  /** The run's seed (`--seed`) that met it first; the property's own seed and path are in its replay. */
  seed: number;
  /** The command that shows it again (report/replayLine.ts), and the curl line of its first exchange. */
  replay?: string;
  curl?: string;
  evidence?: { request: string; response: string };
  /**
   * What its replay (its check on its operation, rerun with its seed as soon as it was found) made of it: shown
   * again, failing with another key, not shown again (met once: a race, a lock, the load of the seed's other
   * requests), or not judged.
   */
  replayed?: 'shown again' | 'fails differently' | 'not shown again' | 'not judged';
}

/** Whether a finding counts for explore's exit code: all but those its replay did not show again. */
export const stillShown = (f: Pick<Finding, 'replayed'>): boolean => f.replayed !== 'not shown again';

/** One seed's run as explore reports it. */
export interface SeedRun {
  seed: number;
  seconds: number;
  requests: number;
  exitCode: number;
  /** The baselined failures it met (known), and the new findings it added. */
  known: number;
  found: string[];
}

/** What identifies a failure across seeds: a second seed meeting it finds nothing new. */
export const findingKey = (f: Pick<Finding, 'check' | 'operation' | 'kind' | 'key'>): string =>
  `${f.check} ${f.operation} ${f.kind} ${f.key}`;

/** The failures of a seed's run that no baseline entry excused, in the order the run reported them. */
export function unexcusedFailures(results: Pick<Results, 'checks' | 'seed'>): Finding[] {
  return results.checks
    .filter((c) => c.status === 'failed')
    .flatMap((c) =>
      (c.failures ?? [])
        .filter((f) => !f.baselined)
        .map((f, i) => ({
          check: c.check,
          level: c.level,
          operation: c.operation,
          kind: f.kind,
          key: f.key,
          message: f.message,
          seed: results.seed,
          replay: c.replay,
          curl: i === 0 ? c.repro : undefined,
          evidence: i === 0 ? evidenceOf(c) : undefined,
        })),
    );
}

/** The known deviations a seed's run met: failures its baseline excused. */
export const knownFailures = (results: Pick<Results, 'checks'>): number =>
  results.checks.reduce((n, c) => n + (c.failures ?? []).filter((f) => f.baselined).length, 0);

function evidenceOf(c: CheckResult): Finding['evidence'] {
  const ev = c.evidence[0];
  return ev
    ? {
        request: `${ev.request.method} ${ev.request.url} ${ev.request.body ?? ''}`.trim(),
        response: `${ev.response.status} ${ev.response.body.slice(0, 300)}`,
      }
    : undefined;
}

/** The findings of a seed that are new to the session (`seen` holds the keys met so far, and takes these). */
export function newFindings(results: Pick<Results, 'checks' | 'seed'>, seen: Set<string>): Finding[] {
  const found: Finding[] = [];
  for (const f of unexcusedFailures(results)) {
    const key = findingKey(f);
    if (seen.has(key)) continue;
    seen.add(key);
    found.push(f);
  }
  return found;
}

/** The baseline entries a user would add for the findings, once each is understood (the reason says so). */
export function baselineDraft(findings: Finding[]): { entries: BaselineEntry[] } {
  return {
    entries: findings.map((f) => ({
      check: f.check,
      operation: f.operation,
      kind: f.kind as BaselineEntry['kind'],
      key: f.key,
      reason: `TO WRITE: found by explore, seed ${f.seed}: ${f.message.slice(0, 200)}`,
      ...(f.evidence ? { evidence: f.evidence } : {}),
      ...(stillShown(f) ? {} : { intermittent: `met once by explore (seed ${f.seed}); its replay passed` }),
    })),
  };
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The findings report: the session, then each new finding with what shows it again, then what was known. */
export function exploreMarkdown(session: {
  target: string;
  minutes: number;
  seeds: SeedRun[];
  findings: Finding[];
}): string {
  const { seeds, findings } = session;
  const known = seeds.reduce((n, s) => n + s.known, 0);
  const requests = seeds.reduce((n, s) => n + s.requests, 0);
  const once = findings.filter((f) => !stillShown(f)).length;
  const lines = [
    `# Explore: ${findings.length ? `${findings.length} new finding(s)${once ? `, ${once} not shown again by its replay` : ''}` : 'nothing new'}`,
    '',
    `${session.target}, ${seeds.length} seed(s) in ${session.minutes} minute(s) (${seeds.map((s) => s.seed).join(', ') || 'none'}), ${requests} requests.`,
    `A finding is new when no baseline entry excused it and no earlier seed of the session met its check, operation, kind and key.`,
    `Each is replayed as it is found: one its replay does not show again was met once (a race, a lock, the seed's load), and does not set the exit code.`,
    '',
    '## New',
    '',
  ];
  if (!findings.length) lines.push('None.');
  else {
    lines.push(
      '| check (level) | failure | operation | seed | what it met | its replay | shows it again |',
      '|---|---|---|---|---|---|---|',
    );
    for (const f of findings)
      lines.push(
        `| \`${f.check}\` (${f.level}) | \`${f.kind} ${cell(f.key)}\` | ${f.operation} | ${f.seed} | ${cell(f.message.slice(0, 300))} | ${f.replayed ?? '–'} | ${[f.replay && `\`${cell(f.replay)}\``, f.curl && `\`${cell(f.curl.slice(0, 600))}\``].filter(Boolean).join('<br>') || '–'} |`,
      );
  }
  lines.push(
    '',
    '## Known',
    '',
    `${known} failure(s) the baseline excused, over every seed: known deviations, not findings.`,
    '',
    '## Seeds',
    '',
    '| seed | seconds | requests | exit | known | new |',
    '|---|---|---|---|---|---|',
    ...seeds.map(
      (s) => `| ${s.seed} | ${s.seconds} | ${s.requests} | ${s.exitCode} | ${s.known} | ${s.found.length} |`,
    ),
    '',
  );
  return lines.join('\n');
}
