/**
 * docs/findings.md: the real deviations the shipped baselines name, written for the server's maintainers.
 * A deviation is an entry of a MUST check (the document or the spec says MUST; SHOULD and MAY entries are
 * judgement calls and stay in the baselines only). Each is shown once, with the releases whose baseline
 * names it, its reason, the request that shows it as a curl where the evidence gives one, and its answer.
 */
import { type Check, checkIdOf } from '../checks/core/check.js';
import type { Baseline, BaselineEntry } from '../baseline/entries.js';

export interface ReleaseBaseline {
  release: string;
  baseline: Baseline;
}

const operationsOf = (e: BaselineEntry): string[] =>
  e.operation === '*' ? ['every operation'] : Array.isArray(e.operation) ? e.operation : [e.operation];

/** The evidence's request as a curl line, where it is `METHOD /path` with an optional JSON body. */
export function curlOf(request: string): string | undefined {
  const m = /^(GET|POST|PUT|PATCH|DELETE) (\/\S*)(?: (.+))?$/.exec(request.trim());
  if (!m) return undefined;
  const [, method, urlPath, body] = m;
  if (/[<>]|\.\.\./.test(urlPath)) return undefined;
  let data = '';
  if (body !== undefined) {
    try {
      data = ` -H 'content-type: application/json' -d '${JSON.stringify(JSON.parse(body)).replace(/'/g, "'\\''")}'`;
    } catch {
      return undefined;
    }
  }
  return `curl -sS -X ${method} "$BASE_URL${urlPath}"${data}`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function findingsMarkdown(releases: readonly ReleaseBaseline[], checks: readonly Check[]): string {
  const level = new Map<string, Check>(checks.map((c) => [c.id, c]));
  // One finding per check, kind, key, database and reason: the operations and releases that show it gathered.
  const findings = new Map<string, { entry: BaselineEntry; operations: Set<string>; releases: Set<string> }>();
  for (const { release, baseline } of releases)
    for (const e of baseline.entries) {
      if (level.get(checkIdOf(e.check))?.level !== 'MUST') continue;
      const id = `${e.check} ${e.kind} ${e.key} ${e.onlyOn ?? ''} ${e.reason}`;
      const seen = findings.get(id) ?? { entry: e, operations: new Set<string>(), releases: new Set<string>() };
      for (const op of operationsOf(e)) seen.operations.add(op);
      seen.releases.add(release);
      findings.set(id, seen);
    }
  const lines = [
    '# Findings: where Prefect deviates from its own document or the spec',
    '',
    '<!-- Generated from the shipped baselines (fixtures/baselines/) by `conformance baseline findings`; a test keeps it current. -->',
    '',
    `${findings.size} deviations of MUST rules, one row each: the check and its clause, the failure (kind and key, as`,
    'the reports show it), the operations and releases it shows on, why, and the request that shows it with its answer',
    '(a curl where the evidence gives one; `$BASE_URL` is the API root). The judgement calls (SHOULD and MAY) stay in',
    'the baselines. `conformance baseline verify` replays them against a server; CI does so against the pinned release.',
    '',
    '| check (clause) | failure | operations | releases | why | request → answer |',
    '|---|---|---|---|---|---|',
  ];
  const sorted = [...findings.values()].sort(
    (a, b) => a.entry.check.localeCompare(b.entry.check) || a.entry.key.localeCompare(b.entry.key),
  );
  for (const { entry: e, operations, releases: shownOn } of sorted) {
    const check = level.get(checkIdOf(e.check))!;
    const failure = `\`${e.kind} ${e.key}\`${e.onlyOn ? ` (${e.onlyOn} only)` : ''}${e.intermittent ? ` (intermittent${typeof e.intermittent === 'string' ? `: ${e.intermittent}` : ''})` : ''}`;
    const { request, response } = e.evidence ?? {};
    const curl = request && curlOf(request);
    const shown = [
      curl ? `\`${curl}\`` : request,
      response && (response.length > 200 ? `${response.slice(0, 200)}…` : response),
    ]
      .filter(Boolean)
      .join(' → ');
    lines.push(
      `| ${[
        `\`${e.check}\` (${check.clause})`,
        failure,
        [...operations].join(', '),
        [...shownOn].join(', '),
        e.reason,
        shown,
      ]
        .map(cell)
        .join(' | ')} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
