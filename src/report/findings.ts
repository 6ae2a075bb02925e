/**
 * docs/findings.md: the real deviations the shipped baselines name, written for the server's maintainers.
 * A deviation is an entry of a MUST check (the document or the spec says MUST; SHOULD and MAY entries are
 * judgement calls and stay in the baselines only). Each is shown once, with the releases whose baseline
 * names it, its reason, the request that shows it as a curl where the evidence gives one, and its answer.
 */
import type { Check } from '../checks/check.js';
import type { Baseline, BaselineEntry } from './baseline.js';

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
  // One finding per check, kind, key and operations; the releases that name it gathered.
  const findings = new Map<string, { entry: BaselineEntry; releases: string[] }>();
  for (const { release, baseline } of releases)
    for (const e of baseline.entries) {
      if (level.get(e.check)?.level !== 'MUST') continue;
      const id = `${e.check} ${e.kind} ${e.key} ${operationsOf(e).join(',')} ${e.onlyOn ?? ''}`;
      const seen = findings.get(id);
      if (seen) seen.releases.push(release);
      else findings.set(id, { entry: e, releases: [release] });
    }
  const lines = [
    '# Findings: where Prefect deviates from its own document or the spec',
    '',
    '<!-- Generated from the shipped baselines (fixtures/baselines/) by `conformance baseline findings`; a test keeps it current. -->',
    '',
    `${findings.size} deviations of MUST rules, each as the baselines name it (a check, a failure kind and key, the`,
    'operations), with the releases it shows on. The judgement calls (SHOULD and MAY) stay in the baselines.',
    '`conformance baseline verify` replays them against a server; CI does so against the pinned release.',
  ];
  const sorted = [...findings.values()].sort((a, b) => a.entry.check.localeCompare(b.entry.check));
  for (const { entry: e, releases: shownOn } of sorted) {
    const check = level.get(e.check)!;
    const ops = operationsOf(e);
    const title = ops.length > 3 ? `${ops.slice(0, 3).join(', ')} and ${ops.length - 3} more` : ops.join(', ');
    lines.push('', `## ${e.check} on ${title}`, '');
    lines.push(`- **Rule:** ${check.title} (clause ${cell(check.clause)})`);
    lines.push(
      `- **Failure:** \`${e.kind} ${e.key}\`${e.onlyOn ? `, on ${e.onlyOn} only` : ''}${e.intermittent ? ', intermittent' : ''}`,
    );
    lines.push(`- **Releases:** ${shownOn.join(', ')}`);
    if (ops.length > 3) lines.push(`- **Operations:** ${ops.join(', ')}`);
    lines.push(`- **Why:** ${cell(e.reason)}`);
    const { request, response } = e.evidence ?? {};
    if (request) {
      const curl = curlOf(request);
      lines.push(curl ? `- **Request:** \`${curl}\`` : `- **Request:** ${cell(request)}`);
    }
    if (response) lines.push(`- **Answer:** ${cell(response.length > 300 ? `${response.slice(0, 300)}…` : response)}`);
  }
  return `${lines.join('\n')}\n`;
}
