/** `compare.md` and `compare.html`: a comparison (compare.ts) written for people, in three parts. */
import {
  type BehaviourDifference,
  type Comparison,
  comparisonRegressed,
  COMPARISON_RULE,
  comparisonVerdict,
  type EditionDifferences,
  type VerdictChange,
} from './compare.js';
import type { DriftChange } from '../openapi/drift.js';
import { esc } from './escape.js';

function count<T>(list: T[], key: (x: T) => string): Array<[string, number]> {
  const m = new Map<string, number>();
  for (const x of list) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return [...m.entries()].sort((x, y) => y[1] - x[1]);
}

const cell = (text: unknown) =>
  String(text ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ')
    .slice(0, 300);

/** A Markdown table of at most `limit` rows, with a line for the rest; nothing for no rows. */
function markdownTable<T>(head: string, rows: T[], row: (x: T) => string, limit: number): string[] {
  if (rows.length === 0) return [];
  const more = rows.length > limit ? ['', `… and ${rows.length - limit} more in compare.json`] : [];
  const columns = head.split('|').length - 2;
  return [head, `|${'---|'.repeat(columns)}`, ...rows.slice(0, limit).map(row), ...more];
}

const countsLine = <T extends { kind: string }>(items: T[], none: string) =>
  count(items, (x) => x.kind)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ') || none;

function driftMarkdown(d: Comparison['drift'], limit: number): string[] {
  if (!d) return ['not available'];
  const breaking = d.changes.filter((x) => x.breaking).length;
  return [
    `A: ${d.a.title ?? ''} ${d.a.version ?? ''}, ${d.a.operations} operations · B: ${d.b.title ?? ''} ${d.b.version ?? ''}, ${d.b.operations} operations`,
    '',
    `**${breaking} breaking**, ${d.changes.length - breaking} non-breaking: ${countsLine(d.changes, 'no change')}`,
    '',
    ...markdownTable(
      '| | operation | where | change | detail |',
      d.changes,
      (x) =>
        `| ${x.breaking ? 'breaking' : 'non-breaking'} | ${cell(x.operation)} | ${cell(x.where)} | ${x.kind} | ${cell(x.detail)} |`,
      limit,
    ),
  ];
}

function verdictsMarkdown(v: Comparison['verdicts'], limit: number): string[] {
  if (!v) return ['not available'];
  const { shown, folded } = listedChanges(v.changes);
  const side = (x: VerdictChange['a']) => (x ? `${x.status}: ${cell(x.message)}` : '-');
  return [
    verdictsLine(v.compared, shown, folded),
    '',
    ...markdownTable(
      '| change | check | operation | A | B |',
      shown,
      (x) => `| ${x.kind} | \`${x.id}\` | ${cell(x.operation)} | ${side(x.a)} | ${side(x.b)} |`,
      limit,
    ),
  ];
}

function behaviourMarkdown(b: Comparison['behaviour'], limit: number): string[] {
  if (!b) return ['not available'];
  return [
    `${b.matched} distinct requests sent to both (A sent ${b.requestsA}, B ${b.requestsB}; ${b.onlyA} only to A, ${b.onlyB} only to B); ids, times and run tags masked.`,
    '',
    countsLine(b.differences, 'no difference'),
    '',
    ...markdownTable(
      '| difference | operation | request | A | B |',
      b.differences,
      (x) => `| ${x.kind} | ${cell(x.operation)} | \`${cell(x.request)}\` | ${cell(x.a)} | ${cell(x.b)} |`,
      limit,
    ),
  ];
}

export function compareMarkdown(c: Comparison, limit = 100): string {
  const sides = [c.a, c.b].map(
    (side, i) => `- ${'AB'[i]}: ${side.target ?? '-'} (seed ${side.seed ?? '-'}, ${side.checks ?? 0} checks)`,
  );
  const lines = [
    `# Comparison: A = ${c.a.label} · B = ${c.b.label}`,
    '',
    `**${comparisonVerdict(c)}**`,
    '',
    COMPARISON_RULE,
    '',
    ...(c.a.target || c.b.target ? [...sides, ''] : []),
    ...c.notes.flatMap((n) => [`> ${n}`, '']),
    ...(c.edition ? ['## Editions', '', ...editionLines(c.edition).map((l) => `- ${l}`), ''] : []),
    '## 1. Document drift',
    '',
    ...driftMarkdown(c.drift, limit),
    '',
    '## 2. Verdicts per check',
    '',
    ...verdictsMarkdown(c.verdicts, limit),
    '',
    '## 3. Behaviour on the same requests',
    '',
    ...behaviourMarkdown(c.behaviour, limit),
  ];
  return `${lines.join('\n')}\n`;
}

/** What tells the two editions apart: the routes each lacks, and the checks the run's configuration decided. */
/** Verdict changes in the order a reader wants them; a check that ran on one side only (skipped, or absent) is no regression: folded. */
const LISTED_ORDER: Array<VerdictChange['kind']> = [
  'pass → fail',
  'fail → pass',
  'same verdict, different failures',
  'same verdict, different message',
];

function listedChanges(changes: VerdictChange[]): { shown: VerdictChange[]; folded: VerdictChange[] } {
  const shown = changes
    .filter((x) => LISTED_ORDER.includes(x.kind))
    .sort((x, y) => LISTED_ORDER.indexOf(x.kind) - LISTED_ORDER.indexOf(y.kind));
  return { shown, folded: changes.filter((x) => !LISTED_ORDER.includes(x.kind)) };
}

/** The section's line: the verdicts that changed by kind (or none), then the folded ones' counts. */
function verdictsLine(compared: number, shown: VerdictChange[], folded: VerdictChange[]): string {
  const changed = foldedLine(shown) || 'no verdict changed';
  const oneSide = folded.length ? `; judged on one side only (compare.json lists them): ${foldedLine(folded)}` : '';
  return `${compared} checks on both sides; ${changed}${oneSide}`;
}

/** Changes in one line: their counts by kind. */
const foldedLine = (folded: VerdictChange[]): string =>
  count(folded, (x) => x.kind)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');

function editionLines(e: EditionDifferences): string[] {
  const routes = (ops: string[]) => (ops.length ? ops.join(', ') : 'none');
  return [
    `compared as editions: ${e.why}`,
    `B lacks ${e.onlyA.length} route(s) A has: ${routes(e.onlyA)}`,
    `A lacks ${e.onlyB.length} route(s) B has: ${routes(e.onlyB)}`,
    `${e.checksOnLacked} check(s) on those routes, judged on one side only, are not listed below`,
    ...e.configuration.map(
      (x) => `${x.checks} check(s) skipped on ${x.side} only, for the run's configuration there: ${x.reason}`,
    ),
  ];
}

function table<T>(
  testId: string,
  head: string[],
  rows: T[],
  cells: (x: T) => string[],
  rowClass: (x: T) => string = () => '',
): string {
  // An empty section says so in its one line above; an empty table would only repeat its labels.
  if (rows.length === 0) return '';
  return `<table data-testid="${testId}"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>
${rows
  .map(
    (x) =>
      `<tr class="${rowClass(x)}">${cells(x)
        .map((v) => `<td>${esc(v)}</td>`)
        .join('')}</tr>`,
  )
  .join('\n')}</tbody></table>`;
}

/** A side in one line: its label, its target when that says more, its seed. */
function sideLine(side: Comparison['a']): string {
  const target = side.target && side.target !== side.label ? ` ${side.target}` : '';
  return `${esc(side.label)}${esc(target)} (seed ${esc(side.seed ?? '-')})`;
}

/** The verdicts section: its line, the changed verdicts' table, and those judged on one side only, folded. */
function verdictsHtml(v: NonNullable<Comparison['verdicts']>): string {
  const { shown, folded } = listedChanges(v.changes);
  const columns = ['change', 'check', 'operation', 'A', 'B'];
  const changed = table<VerdictChange>(
    'verdicts',
    columns,
    shown,
    (x) => [
      x.kind,
      x.id,
      x.operation,
      x.a ? `${x.a.status}: ${x.a.message ?? ''}` : '-',
      x.b ? `${x.b.status}: ${x.b.message ?? ''}` : '-',
    ],
    (x) => (x.kind === 'pass → fail' ? 'bad' : x.kind === 'fail → pass' ? 'good' : ''),
  );
  const oneSide = folded.length
    ? `<details data-testid="verdicts-folded"><summary>judged on one side only: ${esc(foldedLine(folded))}</summary>${table<VerdictChange>(
        'verdicts-other',
        columns,
        folded,
        (x) => [x.kind, x.id, x.operation, x.a?.status ?? '-', x.b?.status ?? '-'],
      )}</details>`
    : '';
  return `<p>${esc(verdictsLine(v.compared, shown, []))}</p>\n${changed}${oneSide}`;
}

export function compareHtml(c: Comparison): string {
  const drift = c.drift
    ? `<p>A: ${esc(c.drift.a.title)} ${esc(c.drift.a.version)}, ${c.drift.a.operations} operations · B: ${esc(c.drift.b.title)} ${esc(c.drift.b.version)}, ${c.drift.b.operations} operations ·
<b data-testid="breaking-count">${c.drift.changes.filter((x) => x.breaking).length}</b> breaking, ${c.drift.changes.filter((x) => !x.breaking).length} non-breaking</p>
${table<DriftChange>(
  'drift',
  ['', 'operation', 'where', 'change', 'detail'],
  c.drift.changes,
  (x) => [x.breaking ? 'breaking' : 'non-breaking', x.operation, x.where, x.kind, x.detail ?? ''],
  (x) => (x.breaking ? 'bad' : ''),
)}`
    : '<p>not available</p>';
  const verdicts = c.verdicts ? verdictsHtml(c.verdicts) : '<p>not available</p>';
  const behaviour = c.behaviour
    ? `<p>${c.behaviour.matched} distinct requests sent to both (A ${c.behaviour.requestsA}, B ${c.behaviour.requestsB}; ${c.behaviour.onlyA} only to A, ${c.behaviour.onlyB} only to B); ids, times and run tags masked. ${
        count(c.behaviour.differences, (x) => x.kind)
          .map(([k, n]) => `${n} ${esc(k)}`)
          .join(', ') || 'no difference'
      }</p>
${table<BehaviourDifference>('behaviour', ['difference', 'operation', 'request', 'A', 'B'], c.behaviour.differences, (x) => [x.kind, x.operation, x.request, x.a, x.b])}`
    : '<p>not available</p>';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Comparison: ${esc(c.a.label)} vs ${esc(c.b.label)}</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:.15em .5em;text-align:left;vertical-align:top;max-width:40em;word-break:break-word}
tr.bad{background:#fde2e1}tr.good{background:#e3f6e5}h2{border-bottom:1px solid #ddd}
.verdict{font-size:1.3em;padding:.5em .8em;border-radius:4px}.verdict.bad{background:#fde2e1}.verdict.good{background:#e3f6e5}</style></head><body>
<h1>Comparison</h1><p class="verdict ${comparisonRegressed(c) ? 'bad' : 'good'}" data-testid="verdict"><b>${esc(comparisonVerdict(c))}</b></p><p>${esc(COMPARISON_RULE)}</p>
<dl><dt>A</dt><dd>${sideLine(c.a)}</dd><dt>B</dt><dd>${sideLine(c.b)}</dd></dl>
${c.notes.map((n) => `<p><i>${esc(n)}</i></p>`).join('')}
${
  c.edition
    ? `<h2>Editions</h2><ul data-testid="editions">${editionLines(c.edition)
        .map((l) => `<li>${esc(l)}</li>`)
        .join('')}</ul>`
    : ''
}
<h2>1. Document drift</h2>${drift}
<h2>2. Verdicts per check</h2>${verdicts}
<h2>3. Behaviour on the same requests</h2>${behaviour}
</body></html>
`;
}
