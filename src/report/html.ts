/**
 * `reports/index.html`: one self-contained page (no network, no external files) that a person reads after
 * a run: the summary, a coverage matrix of operations by check family, and every check, with each
 * failure expandable to its redacted exchanges, curl line, seed, clause and baseline state. The exchanges
 * in results.json are redacted when they are recorded; this page shows only what results.json holds.
 */
import { upgradeHtml } from './upgradeReport.js';
import {
  type CheckResult,
  curlNote,
  gateVerdict,
  identityFacts,
  madeForNamesLine,
  pacingFacts,
  type RecordedExchange,
  type ResultStatus,
  type Results,
  timeTaken,
} from './results.js';
import { esc } from './escape.js';
import { groupBy, groupShape, skipReasons } from './grouping.js';
import { conformanceStatement, statementHtml } from './statement.js';
import { groupReplay } from './replayLine.js';

const STATUSES: ResultStatus[] = ['failed', 'error', 'xpass', 'xfail', 'passed', 'skipped'];
const LEVELS = ['MUST', 'SHOULD', 'MAY'];
/** The status a matrix cell shows for several checks: the most alarming one. */
const SEVERITY: Record<ResultStatus, number> = { failed: 5, error: 4, xpass: 3, xfail: 2, passed: 1, skipped: 0 };

function count(counts: Record<string, number> | undefined, status: string): number {
  return counts?.[status] ?? 0;
}

function countsTable(
  title: string,
  rows: Record<string, Record<string, number>>,
  order: string[],
  testId: string,
): string {
  const keys = [
    ...order.filter((k) => rows[k]),
    ...Object.keys(rows)
      .filter((k) => !order.includes(k))
      .sort(),
  ];
  return `<table class="counts" data-testid="${testId}"><caption>${esc(title)}</caption>
<thead><tr><th></th>${STATUSES.map((s) => `<th class="st-${s}">${s}</th>`).join('')}</tr></thead><tbody>
${keys.map((k) => `<tr><th>${esc(k)}</th>${STATUSES.map((s) => `<td data-key="${esc(k)}" data-status="${s}">${count(rows[k], s) || ''}</td>`).join('')}</tr>`).join('\n')}
</tbody></table>`;
}

function headerBlock(r: Results): string {
  const fields: Array<[string, string]> = [
    ['target', r.target.label || r.target.baseUrl],
    ['base URL', r.target.baseUrl],
    ...(curlNote(r) ? [['curl lines', curlNote(r)!] as [string, string]] : []),
    [
      'server',
      r.target.serverVersions?.length
        ? r.target.serverVersions.map((v) => `${v.version} (reported by ${v.from})`).join(' · ')
        : 'no version reported',
    ],
    [
      'document',
      `${r.target.title ?? ''} ${r.target.apiVersion} (OpenAPI ${r.target.openapi}, profile ${r.target.profile})`,
    ],
    ...identityFacts(r),
    ...pacingFacts(r),
    ['baseline', r.baseline?.why ?? 'none'],
    ['tool', `${r.tool.name} ${r.tool.version}`],
    [
      'seed',
      `${r.seed}${r.requestSequence ? ` · request sequence ${r.requestSequence.sha256.slice(0, 16)}… (${r.requestSequence.requests})` : ''}`,
    ],
    ['started', r.startedAt],
    ['duration', `${(r.durationMs / 1000).toFixed(1)} s · ${r.summary.requests} requests`],
    ['mode', r.readOnly ? `read-only${r.readOnlyBecause ? `: ${r.readOnlyBecause}` : ''}` : 'read-write'],
    ['exit code', String(r.exitCode ?? '')],
  ];
  return `<dl class="run">${fields.map(([k, v]) => `<dt>${esc(k)}</dt><dd data-field="${esc(k)}">${esc(v)}</dd>`).join('')}</dl>`;
}

/** Page one's first line: the gate's decision, the rule that made it, and new, known and fixed failures. */
function verdictBanner(r: Results): string {
  const gate = gateVerdict(r);
  const s = r.summary;
  return `<section class="verdict ${gate.pass ? 'pass' : 'fail'}" data-testid="verdict">
<p class="decision"><b data-testid="verdict-decision">${gate.pass ? 'PASS' : 'FAIL'}</b> <span data-testid="verdict-rule">${esc(gate.reasons.join('; '))}</span></p>
<p><b data-testid="verdict-new">${s.failed}</b> new failure(s) · <b data-testid="verdict-known">${s.xfail}</b> known deviation(s) (baseline) · <b data-testid="verdict-fixed">${s.xpass}</b> fixed (baselined, no longer failing) · ${s.error} not judged</p>
</section>`;
}

/**
 * Failures grouped by check and failure kind (the typed failures of the check API): how many, one example
 * expanded, then every instance. New failures and xpasses first, then the known deviations.
 */
function failureGroups(r: Results): string {
  const section = (title: string, testId: string, checks: CheckResult[]) => {
    const groups = groupBy(checks, (c) => `${c.id}\u0000${c.status === 'xpass' ? 'xpass' : (c.kind ?? 'failure')}`);
    if (groups.length === 0) return `<h3>${esc(title)}</h3><p data-testid="${testId}-none">none</p>`;
    return `<h3>${esc(title)}: ${checks.length} in ${groups.length} group(s)</h3><ul class="groups" data-testid="${testId}">${groups
      .map(([key, list]) => {
        const [id, kind] = key.split('\u0000');
        const example = list[0];
        const replay = groupReplay(example);
        return `<li data-group-check="${esc(id)}" data-group-kind="${esc(kind)}"><details><summary><b class="n" data-testid="group-count">${list.length}</b> <span class="lvl">${example.level}</span> <code>${esc(id)}</code> <span class="kind">${esc(kind)}</span> <span class="msg">${esc(groupShape(list.map((c) => c.message ?? '')))}</span></summary>
<p>example: <span class="op">${esc(example.operation)}</span></p><pre>${esc((example.message ?? '').slice(0, 1500))}</pre>${example.repro ? `<pre class="curl">${esc(example.repro)}</pre>` : ''}${example.reproNote ? `<p>${esc(example.reproNote)}</p>` : ''}${replay ? `<p>replay the group:</p><pre class="replay" data-field="group-replay">${esc(replay)}</pre>` : ''}
<p>every instance:</p><ul class="instances">${list.map((c) => `<li><span class="op">${esc(c.operation)}</span> <code>${esc(c.key ?? '')}</code></li>`).join('')}</ul></details></li>`;
      })
      .join('\n')}</ul>`;
  };
  return `${section(
    'New failures',
    'groups-new',
    r.checks.filter((c) => c.status === 'failed' || c.status === 'xpass'),
  )}${section(
    'Known deviations (baseline)',
    'groups-known',
    r.checks.filter((c) => c.status === 'xfail'),
  )}`;
}

/** Why checks were skipped, grouped by the reason's shape. */
function skipGroups(r: Results): string {
  const groups = skipReasons(r.checks);
  if (groups.length === 0) return '<p data-testid="skip-groups-none">no check was skipped</p>';
  return `<table class="skips" data-testid="skip-groups"><thead><tr><th>checks</th><th>reason</th><th>for example</th></tr></thead><tbody>${groups
    .map(
      ({ reason, checks: list }) =>
        `<tr><td class="n">${list.length}</td><td>${esc(reason)}</td><td class="op">${esc(
          [...new Set(list.map((c) => `${c.id} ${c.operation}`))].slice(0, 3).join(' · '),
        )}</td></tr>`,
    )
    .join('\n')}</tbody></table>`;
}

function statusCards(r: Results): string {
  return `<div class="cards">${STATUSES.map(
    (s) =>
      `<button type="button" class="card st-${s}" data-status-card="${s}" title="show only ${s}"><span class="n" data-testid="count-${s}">${r.summary[s]}</span> ${s}</button>`,
  ).join('')}</div>`;
}

function coverageMatrix(r: Results): string {
  const families = [...new Set(r.checks.map((c) => c.family))].sort();
  const cells = new Map<string, CheckResult[]>();
  for (const c of r.checks) {
    const key = `${c.operation}\u0000${c.family}`;
    (cells.get(key) ?? cells.set(key, []).get(key)!).push(c);
  }
  const rows = r.operations.map((op) => {
    const key = `${op.method} ${op.path}`;
    const tds = families.map((f) => {
      const list = cells.get(`${key}\u0000${f}`) ?? [];
      if (list.length === 0) return '<td class="none">·</td>';
      const worst = list.reduce((a, b) => (SEVERITY[b.status] > SEVERITY[a.status] ? b : a)).status;
      const tally = STATUSES.map((s) => [s, list.filter((c) => c.status === s).length] as const).filter(
        ([, n]) => n > 0,
      );
      return `<td class="st-${worst}" title="${esc(tally.map(([s, n]) => `${n} ${s}`).join(', '))}">${esc(worst)}</td>`;
    });
    const reach = !op.exercised ? 'not exercised' : op.reached2xx ? '2xx' : 'no 2xx';
    return `<tr><th class="op">${esc(key)}</th><td class="reach" title="${esc(op.note ?? '')}">${reach} · ${op.requests}</td>${tds.join('')}</tr>`;
  });
  return `<table class="matrix" data-testid="coverage-matrix"><thead><tr><th>operation</th><th>reached · requests</th>${families.map((f) => `<th>${esc(f)}</th>`).join('')}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

function exchangeBlock(ex: RecordedExchange, n: number): string {
  const reqHeaders = Object.entries(ex.request.headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  const resHeaders = Object.entries(ex.response.headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  const answer =
    ex.response.status === 0
      ? `no answer: ${ex.response.error ?? ''}`
      : `${ex.response.status}${ex.response.truncated ? ' (body truncated)' : ''}`;
  return `<div class="exchange"><h5>exchange ${n} · ${esc(ex.ms)} ms</h5>
<pre class="req">${esc(`${ex.request.method} ${ex.request.url}\n${reqHeaders}${ex.request.body !== undefined ? `\n\n${ex.request.body}` : ''}`)}</pre>
<pre class="res">${esc(`${answer}\n${resHeaders}\n\n${ex.response.body}`)}</pre>
<pre class="curl">${esc(ex.curl)}</pre></div>`;
}

function checkRow(c: CheckResult, seed: number): string {
  const attrs = `data-status="${c.status}" data-family="${esc(c.family)}" data-level="${c.level}"`;
  const head = `<span class="badge st-${c.status}">${c.status}</span> <span class="lvl">${c.level}</span> <code>${esc(c.id)}</code> <span class="op">${esc(c.operation)}</span> <span class="msg">${esc((c.message ?? '').slice(0, 200))}</span>`;
  const expandable = c.status === 'failed' || c.status === 'xpass' || c.status === 'xfail' || c.status === 'error';
  if (!expandable) return `<li class="check" ${attrs}>${head}</li>`;
  const seeds = `seed ${seed}${c.seed !== undefined ? `, property seed ${c.seed}, path ${c.path ?? '-'}` : ''}`;
  const expires = c.baseline?.expires ? `; expires ${c.baseline.expires}` : '';
  const baseline = !c.baseline
    ? 'not in the baseline'
    : c.status === 'xfail'
      ? `expected failure (baseline${c.baseline.conditional ? `; ${c.baseline.conditional}` : ''}): ${c.baseline.reason}${expires}`
      : c.status === 'xpass'
        ? `the baseline names a failure that did not show: ${c.baseline.reason}${expires}`
        : `the baseline names some of these failures (${c.baseline.reason}); the others are new`;
  return `<li class="check" ${attrs}><details><summary>${head}</summary>
<dl class="detail"><dt>rule</dt><dd>${esc(c.title)}</dd>
<dt>clause</dt><dd>${esc(c.clause)}${c.clauseText ? ` — ${esc(c.clauseText)}` : ''}</dd>
<dt>message</dt><dd><pre>${esc(c.message ?? '')}</pre></dd>
${c.failures ? `<dt>failures</dt><dd data-field="failures">${c.failures.map((f) => `<code>${esc(f.kind)}</code> <code>${esc(f.key)}</code>${f.baselined ? ' (baseline)' : ''}`).join('<br>')}</dd>` : ''}
<dt>replay</dt><dd>${c.replay ? `<pre class="replay" data-field="replay">${esc(c.replay)}</pre>` : ''}<span class="seeds">${esc(seeds)}</span></dd>
<dt>baseline</dt><dd data-field="baseline">${esc(baseline)}</dd>
${c.repro ? `<dt>curl</dt><dd><pre class="curl">${esc(c.repro)}</pre>${c.reproNote ? `<p data-field="repro-note">${esc(c.reproNote)}</p>` : ''}</dd>` : ''}</dl>
${c.evidence.map((ex, i) => exchangeBlock(ex, i + 1)).join('\n')}
</details></li>`;
}

function filterBar(r: Results): string {
  const families = [...new Set(r.checks.map((c) => c.family))].sort();
  const group = (name: string, values: string[], checked: (v: string) => boolean) =>
    `<fieldset data-filter="${name}"><legend>${name}</legend>${values
      .map(
        (v) =>
          `<label><input type="checkbox" name="${name}" value="${esc(v)}"${checked(v) ? ' checked' : ''}> ${esc(v)}</label>`,
      )
      .join(' ')}</fieldset>`;
  return `<form class="filters" data-testid="filters">${group('status', STATUSES, () => true)}${group('family', families, () => true)}${group('level', LEVELS, () => true)}
<label class="search">text <input type="search" name="text" placeholder="check id, operation or message"></label></form>
<p data-testid="shown">showing <span data-testid="shown-count">${r.checks.length}</span> of ${r.checks.length} checks</p>`;
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1d1d1f}
h1{font-size:1.5em;margin:0 0 .5em}h2{font-size:1.2em;margin:1.5em 0 .5em;border-bottom:1px solid #ddd}
dl.run{display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em;margin:0}dl.run dt{color:#666}dl.run dd{margin:0}
.cards{display:flex;gap:.5em;margin:1em 0}.card{border:1px solid #ccc;border-radius:6px;padding:.5em 1em;background:#fafafa;cursor:pointer;font:inherit}
.card .n{font-size:1.6em;font-weight:600;display:block}
.st-failed{background:#fde2e1}.st-error{background:#ffd8b5}.st-xpass{background:#fff0c2}.st-xfail{background:#efe6fb}.st-passed{background:#e3f6e5}.st-skipped{background:#eef0f2}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.15em .5em;text-align:left}caption{text-align:left;font-weight:600}
table.counts td{text-align:right;min-width:3em}
.matrix-wrap{max-height:32em;max-width:100%;overflow:auto;border:1px solid #ddd}table.matrix{margin:0;font-size:12px}table.matrix th.op{font-family:monospace;white-space:nowrap}
table.matrix thead th{position:sticky;top:0;background:#fff}td.none{color:#bbb;text-align:center}
form.filters{display:flex;flex-wrap:wrap;gap:.5em;align-items:flex-start}fieldset{border:1px solid #ddd;border-radius:4px}
ul.checks{list-style:none;padding:0;margin:0}li.check{display:block;border-bottom:1px solid #eee;padding:.2em 0;content-visibility:auto;contain-intrinsic-size:auto 1.6em}li.check[hidden]{display:none}
.verdict{border-radius:6px;padding:.4em 1em;margin:.5em 0 1em}.verdict.pass{background:#e3f6e5}.verdict.fail{background:#fde2e1}.verdict .decision{font-size:1.3em;margin:.2em 0}
ul.groups{list-style:none;padding:0}ul.groups>li{display:block;border-bottom:1px solid #eee;padding:.2em 0}ul.groups .n{display:inline-block;min-width:2.5em;text-align:right}.kind{font-family:monospace;color:#8a3b00}
ul.instances{columns:2;font-size:12px}table.skips td.n{text-align:right}table.skips{font-size:12px}
.badge{display:inline-block;min-width:4.5em;text-align:center;border-radius:3px;font-size:12px}.lvl{font-size:12px;color:#555}
.op{font-family:monospace}.msg{color:#555}summary{cursor:pointer}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;padding:.4em;margin:.2em 0;font-size:12px;max-height:20em;overflow:auto}
dl.detail{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em}dl.detail dd{margin:0}.exchange{margin:.5em 0 .5em 1em}h5{margin:.3em 0}
.errors li{color:#a40000}`;

/**
 * Filtering: a check row is shown when its status, family and level are all ticked and it contains the text.
 * Status, family and level hide rows by one style rule each (one style recalculation, however many rows);
 * the count comes from the rows' attributes read once; only a text filter visits the rows. Rows are blocks,
 * not list items: hiding thousands of list items made Chromium renumber the list for each, and a click took
 * seconds.
 */
const SCRIPT = `
(function(){
  var form=document.querySelector('form.filters');
  var rows=[].slice.call(document.querySelectorAll('li.check'));
  var facts=rows.map(function(r){return {s:r.dataset.status,f:r.dataset.family,l:r.dataset.level,r:r};});
  var shown=document.querySelector('[data-testid=shown-count]');
  var style=document.getElementById('filter-style');
  var lastText='';
  function ticked(name){return [].slice.call(form.querySelectorAll('input[name='+name+']:checked')).map(function(i){return i.value});}
  function unticked(name){return [].slice.call(form.querySelectorAll('input[name='+name+']:not(:checked)')).map(function(i){return i.value});}
  function apply(){
    var st=ticked('status'),fa=ticked('family'),lv=ticked('level');
    var rules=[];
    [['status','status'],['family','family'],['level','level']].forEach(function(p){
      unticked(p[0]).forEach(function(v){rules.push('li.check[data-'+p[1]+'="'+v.replace(/"/g,'')+'"]{display:none}');});
    });
    style.textContent=rules.join('\\n');
    var text=form.querySelector('input[name=text]').value.toLowerCase();
    if(text||lastText){facts.forEach(function(x){x.r.hidden=!!text&&x.r.textContent.toLowerCase().indexOf(text)<0;});lastText=text;}
    var n=0;
    facts.forEach(function(x){if(st.indexOf(x.s)>=0&&fa.indexOf(x.f)>=0&&lv.indexOf(x.l)>=0&&!x.r.hidden)n++;});
    shown.textContent=String(n);
  }
  form.addEventListener('input',apply);form.addEventListener('change',apply);
  [].slice.call(document.querySelectorAll('[data-status-card]')).forEach(function(card){
    card.addEventListener('click',function(){
      var want=card.dataset.statusCard;
      [].slice.call(form.querySelectorAll('input[name=status]')).forEach(function(i){i.checked=i.value===want;});
      apply();document.getElementById('checks').scrollIntoView();
    });
  });
})();`;

/** Where the run's time went: the target's answer times by family, and the run's time box. */
function timingSection(r: Results): string {
  const t = r.timing;
  if (!t) return '';
  const rows = Object.entries(t.latency)
    .sort(([, a], [, b]) => timeTaken(b) - timeTaken(a))
    .map(
      ([sender, l]) =>
        `<tr><td>${esc(sender)}</td><td>${l.requests}</td><td>${l.seconds}</td><td>${l.meanMs}</td><td>${l.p50Ms}</td><td>${l.p95Ms}</td><td>${l.maxMs}</td><td>${l.retried ?? 0}</td><td>${l.retrySeconds ?? 0}</td></tr>`,
    )
    .join('');
  const box = t.timeBox.spent
    ? `<p data-testid="time-box"><strong>${t.timeBox.kind === 'budget' ? 'Time-boxed' : 'Deadline reached'}:</strong> ${esc(t.timeBox.spent.reason)} at ${esc(t.timeBox.spent.at)}; ${r.summary.notRun ?? 0} check(s) not run (reported as skipped, never as passed).</p>`
    : // A deadline not reached is a safety net the run did not need, which the user may never have set: not a word.
      t.timeBox.kind === 'budget'
      ? `<p data-testid="time-box">budget ${t.timeBox.seconds} s, not reached.</p>`
      : '';
  return `<h2 id="timing">Where the time went</h2>
${box}
<table data-testid="latency"><thead><tr><th>sent by</th><th>requests</th><th>answer time, s</th><th>mean ms</th><th>p50 ms</th><th>p95 ms</th><th>max ms</th><th>retried</th><th>before the retried answers, s</th></tr></thead><tbody>${rows}</tbody></table>
<p>"exercise" is the requests every family reads (each operation's valid, generated and invalid requests); the rest are each family's own. The answer time is the target's, as the suite timed it, for each request's last attempt. A request refused with 503 (or dropped) is retried with backoff: "before the retried answers" is the time from their first attempts to their last, the refused attempts, the backoff and the wait for a slot.</p>`;
}

export function htmlReport(r: Results): string {
  const title = `Conformance: ${r.target.label || (r.target.serverVersion ? `${r.target.title ?? ''} (server ${r.target.serverVersion})` : r.target.title) || r.target.baseUrl}`;
  // Failures first, so that the list opens on what needs attention.
  const ordered = [...r.checks].sort((a, b) => SEVERITY[b.status] - SEVERITY[a.status]);
  const errors = r.errors?.length
    ? `<ul class="errors" data-testid="errors">${r.errors.map((e) => `<li>${esc(e)}</li>`).join('')}</ul>`
    : '';
  const notReached = r.operations.filter((o) => !o.reached2xx);
  const cleanup = r.cleanup
    ? `<p data-testid="cleanup">cleanup: ${r.cleanup.deleted} deleted, ${r.cleanup.alreadyGone} already gone, ${r.cleanup.failed.length} failed${r.cleanup.failed.map((f) => `; could not delete ${esc(f.collection)} ${esc(f.id)}: ${esc(f.reason)}`).join('')}, ${r.cleanup.notDeletable.length} not deletable through the API${(r.cleanup.sideEffects ?? []).map((e) => `; made by the server during the run (${esc(e.why)}): ${esc(e.path)}, ${e.deleted ? 'deleted' : `left: ${esc(e.reason ?? '')}`}`).join('')}${r.cleanup.madeForNames ? `; ${esc(madeForNamesLine(r.cleanup.madeForNames))}` : ''}</p>`
    : '';
  const filtersCovered = r.coverage
    ? `<p>filter (collection, field, operator) triples: ${r.coverage.filters.filter((f) => f.checked > 0).length} checked of ${r.coverage.filters.length}; sort values: ${r.coverage.sorts.length}</p>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style><style id="filter-style"></style></head>
<body>
<h1>${esc(title)}</h1>
${verdictBanner(r)}
${headerBlock(r)}
${errors}
<h2 id="summary">Summary</h2>
${statusCards(r)}
${r.upgrade ? upgradeHtml(r.upgrade) : ''}
<div style="display:flex;gap:2em;flex-wrap:wrap;align-items:flex-start">${countsTable('by family', r.summary.byFamily, [], 'by-family')}${countsTable('by level', r.summary.byLevel, LEVELS, 'by-level')}</div>
${cleanup}
<h2 id="statement">Conformance statement: each clause of the spec</h2>
${statementHtml(r.statement ?? conformanceStatement(r))}
<h2 id="failures">Failures by check and kind</h2>
${failureGroups(r)}
<h2 id="skips">Skipped checks by reason</h2>
${skipGroups(r)}
${timingSection(r)}
<h2 id="coverage">Coverage: operations × check families</h2>
<p>${r.operations.length} operations in the document, ${r.operations.filter((o) => o.exercised).length} exercised, ${r.operations.length - notReached.length} reached 2xx.${notReached.length ? ` Not reached: ${notReached.map((o) => `${esc(o.method)} ${esc(o.path)}${o.note ? ` (${esc(o.note)})` : ''}`).join('; ')}.` : ''}</p>
${filtersCovered}
<div class="matrix-wrap">${coverageMatrix(r)}</div>
<h2 id="checks">Checks</h2>
${filterBar(r)}
<ul class="checks" data-testid="checks">
${ordered.map((c) => checkRow(c, r.seed)).join('\n')}
</ul>
<script>${SCRIPT}</script>
</body></html>
`;
}
