/** The shape of `reports/results.json` (design.md's contract; more fields are welcome, none removed). */
import type { ResultStatus } from '../baseline/entries.js';
import type { Level } from '../checks/core/check.js';
import type { FailureKind } from '../checks/core/verdict.js';
import type { TargetIdentity } from '../config/worker.js';
import type { PacingSummary } from '../config/pacingStatus.js';
import type { CleanupSummary } from '../resources/cleanup.js';
import type { Normalisation } from '../openapi/normalize.js';

/** Where a target stands on one clause of the spec (report/statement.ts). */
export type ClauseStanding = 'judged' | 'not applicable' | 'not judged';

export interface ClauseStatement {
  clause: string;
  standing: ClauseStanding;
  /** The checks of the suite that cite the clause. */
  checks: string[];
  /** The verdicts on it, by status (judged clauses; a clause whose checks all skipped has its skips here). */
  counts: Partial<Record<ResultStatus, number>>;
  /** Why it was not judged, or what makes it not applicable. */
  why?: string;
}

// A verdict with the baseline applied (baseline/entries.ts). `error`: the check could not be judged, because the
// target stopped answering.
export type { ResultStatus };

export interface RecordedExchange {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response: { status: number; headers: Record<string, string>; body: string; error?: string; truncated: boolean };
  ms: number;
  curl: string;
}

/** One typed failure of a verdict, as results.json carries it (its exchanges are the result's evidence). */
export interface FailureRecord {
  kind: FailureKind;
  key: string;
  message: string;
  data?: Record<string, unknown>;
  /** A baseline entry names this failure (the verdict is xfail only when every failure is so named). */
  baselined?: boolean;
  /** The baseline replays (baseline/entries.ts replayId) among the requests that showed it. */
  replays?: string[];
}

export interface CheckResult {
  /** The check's id; for a check with variants, `<id>[<variant>]`. */
  id: string;
  /** The check's own id, without the variant. */
  check: string;
  /** The case of the operation this verdict is about (a sort value), for a check with variants. */
  variant?: string;
  family: string;
  level: Level;
  clause: string;
  /** The spec's words for the clause. */
  clauseText?: string;
  title: string;
  operation: string;
  collection: string;
  status: ResultStatus;
  message?: string;
  /** The first failure's kind and key (failed and xfail verdicts). */
  kind?: FailureKind;
  key?: string;
  /** Every distinct failure of the verdict, first shown first. */
  failures?: FailureRecord[];
  repro?: string;
  /** When the curl line no longer reproduces by itself (report/replayLine.ts: the object it names is deleted). */
  reproNote?: string;
  /** The command that shows the verdict again (report/replayLine.ts), for failures, fixed cases and known deviations. */
  replay?: string;
  seed?: number;
  path?: string;
  /** A failed verdict's baseline replays (baseline/entries.ts replayId), whether each showed a failure or not. */
  replaysJudged?: string[];
  evidence: RecordedExchange[];
  /** How long judging took, the check's own requests included (exercising the operation is not). */
  ms?: number;
  /** Not run: the run's budget or deadline was spent before the check was reached (status skipped). */
  notRun?: boolean;
  /** The baseline entries that apply: those that excused a failure, else those whose failure did not show. */
  baseline?: {
    reason: string;
    expires?: string;
    excused: Array<{ kind: string; key: string }>;
    notShown: Array<{ kind: string; key: string }>;
    /** Why an entry that excused a failure may not hold on this target (another release's, either database). */
    conditional?: string;
    /** Entries that may not hold on this target and whose failure did not show: reported, not gated. */
    unconfirmed?: Array<{ kind: string; key: string; conditional: string }>;
  };
}

export interface OperationSummary {
  method: string;
  path: string;
  exercised: boolean;
  reached2xx: boolean;
  requests: number;
  /** Why the operation was not exercised, or cannot reach 2xx. */
  note?: string;
  /** Requests that needed a retry after 503. */
  retried?: number;
}

export interface RunInfo {
  tool: { name: string; version: string };
  target: {
    baseUrl: string;
    openapi: string;
    apiVersion: string;
    title?: string;
    profile: string;
    managed?: string;
    label?: string;
    /** The version the server reports of its release (the first of serverVersions). */
    serverVersion?: string;
    /** Every version the server reports, with the request that told it (the document's version endpoints). */
    serverVersions?: Array<{ version: string; from: string; kind?: 'release' | 'api' }>;
    /** The release and database the run found behind the target, and how. */
    identity?: TargetIdentity;
  };
  seed: number;
  /** sha256 of the run's sorted, normalised requests: the same for two runs of the same seed. */
  requestSequence?: { sha256: string; requests: number };
  runTag: string;
  runs: number;
  readOnly: boolean;
  /** The target's data could be changed beyond the run's own objects (--disposable, or the managed server). */
  disposable?: boolean;
  /** SHOULD failures fail the run too (--gate-should); MAY failures never do. */
  gateShould?: boolean;
  /** Why the run was read-only when the user did not ask for it (its target came from Prefect's settings). */
  readOnlyBecause?: string;
  /** The run's selection in one line, when it covered only part of the document or of the checks. */
  selection?: string;
  /** What the selection left out: never run, never counted as passed. */
  notSelected?: { operations: string[]; checks: string[] };
  /** Where the target came from (a flag, a variable, the configuration file, a Prefect profile, or managed). */
  targetSource?: string;
  /** Where the run's time went. */
  timing?: Timing;
}

/** The target's answer times of one sender's requests, in ms. */
export interface Latency {
  requests: number;
  /** The answers' time: each request's last attempt. */
  seconds: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** Requests that needed more than one attempt (a 503, a dropped connection); absent in earlier results. */
  retried?: number;
  /** What their earlier attempts took: the refused attempts, the backoff, the wait for a slot. */
  retrySeconds?: number;
}

export interface Timing {
  /** When the suites started: the time box counts from here. */
  suitesStartedAt: string;
  /** When the first verdict was ready. */
  firstVerdictAt?: string;
  /** The run's budget (--budget) or deadline (--deadline), and when it was spent if it was. */
  timeBox: { kind: 'budget' | 'deadline'; seconds: number; spent?: { at: string; reason: string } };
  /** Answer times by family of checks (each check's requests under its family), and `exercise` (the requests every family reads). */
  latency: Record<string, Latency>;
  /** The target's rate limits (429s) and --max-rate: what was met and waited for, cleanup's included. */
  pacing?: PacingSummary;
  /**
   * Whether the target refused writes that met at it (503) during the suites, so that theirs took turns from
   * then on (http/pacing/serverLoad.ts): cleanup's deletes take turns from their first.
   */
  writesTookTurns?: boolean;
}

/** All the time a sender's requests took: their answers and the attempts before them. */
export const timeTaken = (l: Latency) => l.seconds + (l.retrySeconds ?? 0);

/** The family a sender's label belongs to: a check's id starts with its family (`filters.oracle`). */
export const senderFamily = (label: string) => label.split('.')[0];

/** Answer times by family (a check's requests count under its family's), or by sender with `group` the identity. */
export function latencyBySender(
  bySender: Map<string, { requests: number; ms: number[]; retried?: number; retryMs?: number }>,
  group: (label: string) => string = senderFamily,
): Record<string, Latency> {
  const grouped = new Map<string, { requests: number; ms: number[]; retried: number; retryMs: number }>();
  for (const [label, { requests, ms, retried = 0, retryMs = 0 }] of bySender) {
    const g = grouped.get(group(label)) ?? { requests: 0, ms: [], retried: 0, retryMs: 0 };
    g.requests += requests;
    g.ms.push(...ms);
    g.retried += retried;
    g.retryMs += retryMs;
    grouped.set(group(label), g);
  }
  const out: Record<string, Latency> = {};
  for (const [sender, { requests, ms, retried, retryMs }] of [...grouped].sort(([a], [b]) => a.localeCompare(b))) {
    const sorted = [...ms].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    const total = sorted.reduce((s, v) => s + v, 0);
    out[sender] = {
      requests,
      seconds: Number((total / 1000).toFixed(2)),
      meanMs: Math.round(total / Math.max(1, sorted.length)),
      p50Ms: at(0.5),
      p95Ms: at(0.95),
      maxMs: sorted.at(-1) ?? 0,
      retried,
      retrySeconds: Number((retryMs / 1000).toFixed(2)),
    };
  }
  return out;
}

/** A field of an object that read back other than the first release served it. */
export interface FieldChange {
  id: string;
  field: string;
  before: unknown;
  after: unknown;
  /** The baseline entry of the second release that names it. */
  excusedBy?: string;
}

/** What one collection of `conformance upgrade`'s corpus came through the migration as. */
export interface CollectionSurvival {
  collection: string;
  written: number;
  readBack: number;
  lost: Array<{ id: string; how: string; excusedBy?: string }>;
  changed: FieldChange[];
  /** Fields the first release served that the second's document no longer has: not compared. */
  dropped: string[];
  /** Fields not compared, each with why. */
  masked: Array<{ field: string; why: string }>;
}

/** `conformance upgrade`: the corpus written through one release, read back through the next after migrating. */
export interface UpgradeReport {
  from: string;
  to: string;
  database: string;
  /** The second release's migration of the first's database: its command and how long it took. */
  migration: { command: string; seconds: number };
  collections: CollectionSurvival[];
  /** Collections of the corpus the first release has no create for. */
  absent: string[];
}

/** The losses and changes of an upgrade that no baseline entry names: each fails the run. */
export function upgradeFailures(upgrade: UpgradeReport | undefined): { lost: number; changed: number } {
  const rows = upgrade?.collections ?? [];
  return {
    lost: rows.reduce((n, c) => n + c.lost.filter((l) => !l.excusedBy).length, 0),
    changed: rows.reduce((n, c) => n + c.changed.filter((f) => !f.excusedBy).length, 0),
  };
}

export interface Results extends RunInfo {
  startedAt: string;
  durationMs: number;
  operations: OperationSummary[];
  checks: CheckResult[];
  summary: {
    passed: number;
    failed: number;
    skipped: number;
    xfail: number;
    xpass: number;
    error: number;
    /** Of the skipped: not run, the budget or deadline spent before they were reached. */
    notRun?: number;
    requests: number;
    byFamily: Record<string, Record<string, number>>;
    byLevel: Record<string, Record<string, number>>;
  };
  /** design.md's table: every filter (collection, field, operator) and every sort value, checked or skipped with the reason. */
  /** The conformance statement: each clause of the spec judged, not applicable, or not judged and why (statement.ts). */
  statement?: ClauseStatement[];
  coverage?: {
    filters: Array<{ operation?: string; triple: string; checked: number; skipped?: string }>;
    sorts: Array<{ value: string; operation: string; status: ResultStatus; message?: string }>;
  };
  cleanup?: CleanupSummary;
  /** The baseline the run applied, and why that one (given, none, or chosen for the target's reported version). */
  baseline?: {
    file?: string /** The files of the releases around the target's, where their entries apply together. */;
    files?: string[];
    why: string;
  };
  /** How the suite read the target's document where it departs from 2020-12 (each kind once; absent when it needed nothing). */
  normalisations?: Normalisation[];
  /** `conformance upgrade`'s survival of the corpus; the checks are then the second release's on the migrated database. */
  upgrade?: UpgradeReport;
  exitCode?: number;
  errors?: string[];
}

export function summarize(checks: CheckResult[], requests: number): Results['summary'] {
  const summary: Results['summary'] = {
    passed: 0,
    failed: 0,
    skipped: 0,
    xfail: 0,
    xpass: 0,
    error: 0,
    requests,
    byFamily: {},
    // One order of levels everywhere: the strongest first.
    byLevel: Object.fromEntries(
      ['MUST', 'SHOULD', 'MAY'].filter((level) => checks.some((c) => c.level === level)).map((level) => [level, {}]),
    ),
  };
  for (const c of checks) {
    summary[c.status]++;
    if (c.notRun) summary.notRun = (summary.notRun ?? 0) + 1;
    (summary.byFamily[c.family] ??= {})[c.status] = (summary.byFamily[c.family][c.status] ?? 0) + 1;
    (summary.byLevel[c.level] ??= {})[c.status] = (summary.byLevel[c.level][c.status] ?? 0) + 1;
  }
  return summary;
}

/** Cleanup's line for what the server made for the names the run sent (CleanupSummary.madeForNames). */
export function madeForNamesLine({ by, deleted, kept }: NonNullable<CleanupSummary['madeForNames']>): string {
  const before = kept ? `, ${kept} kept (not made by the run's requests)` : '';
  return `made by the server for the names the run sent (${by.join(', ')}): ${deleted} deleted${before}`;
}

/** What a reader of a managed run's curl lines needs: the server they named is gone, "$BASE_URL" stands for one. */
export function curlNote(results: Pick<Results, 'target'>): string | undefined {
  if (!results.target.managed) return undefined;
  return `curl lines start with "$BASE_URL": the managed server (${results.target.managed}) stopped with the run; start one (e.g. \`prefect server start\`) and set BASE_URL=http://127.0.0.1:4200/api, or rerun the failures with \`conformance replay\``;
}

/**
 * What the run found of its target beyond its document, and how, as every report states it: the release, the
 * database, and the known deviations excused by entries that may not hold there (another release's, or one
 * database's where the target's could not be told), with those of them that did not show.
 */
export function identityFacts(results: Pick<Results, 'target' | 'checks'>): Array<[label: string, text: string]> {
  const facts: Array<[string, string]> = [];
  const { release, database } = results.target.identity ?? {};
  if (release) facts.push(['release', `${release.version} (${release.from})`]);
  else if (results.target.identity) facts.push(['release', 'not read (no GET /admin/version, no --server-version)']);
  if (database) facts.push(['database', `${database.name ?? 'unknown'} (${database.how})`]);
  const conditional = new Map<string, number>();
  for (const c of results.checks)
    if (c.status === 'xfail' && c.baseline?.conditional)
      conditional.set(c.baseline.conditional, (conditional.get(c.baseline.conditional) ?? 0) + 1);
  for (const [why, n] of conditional)
    facts.push(['baseline note', `${n} known deviation(s) excused by entries that may not hold here (${why})`]);
  const unconfirmed = results.checks.flatMap((c) => c.baseline?.unconfirmed ?? []).length;
  if (unconfirmed)
    facts.push([
      'baseline note',
      `${unconfirmed} entr(ies) that may not hold here, or whose replay met a busy server, did not show: reported, not gated`,
    ]);
  return facts;
}

/** The target's rate limits and --max-rate, where the run met them: 429s by family, the time waited, the pace set. */
export function pacingFacts(results: Pick<Results, 'timing'>): Array<[label: string, text: string]> {
  const pacing = results.timing?.pacing;
  if (!pacing || (pacing.rateLimited === 0 && pacing.waitedMs === 0)) return [];
  const families = Object.entries(pacing.byFamily)
    .filter(([, f]) => f.rateLimited || f.rate)
    .map(
      ([name, f]) =>
        `${name} ${f.rateLimited}${f.rate ? ` (paced at ${f.rate}/s)` : ''}${f.notThePace ? ' (429s whatever the pace: unpaced, each request waited its own Retry-After)' : ''}`,
    );
  const limited = pacing.rateLimited
    ? `${pacing.rateLimited} answer(s) 429, sent again once allowed and never judged: ${families.join(', ')}; `
    : '';
  const max = pacing.maxRate ? `; --max-rate ${pacing.maxRate}/s` : '';
  return [['rate limits', `${limited}${(pacing.waitedMs / 1000).toFixed(1)} s waited in all, over requests${max}`]];
}

/**
 * What a report's heading names: the server, by its release where it is known (a document's own version is
 * often not the release: Prefect 2's says 0.1.0), then the document; else the document alone.
 */
export function targetHeading(target: Results['target']): string {
  const document = `${target.title ?? 'target'} ${target.apiVersion}`;
  if (!target.serverVersion) return document;
  const database = target.identity?.database?.name ? ` on ${target.identity.database.name}` : '';
  return `${target.profile} ${target.serverVersion}${database} (document: ${document})`;
}

/** identityFacts, a line each. */
export const identityLines = (results: Pick<Results, 'target' | 'checks' | 'timing'>): string[] =>
  [...identityFacts(results), ...pacingFacts(results)].map(([label, text]) => `${label}: ${text}`);

/** The gate's decision and the rules that made it, as page one of every report states it. */
export interface GateVerdict {
  pass: boolean;
  /** Why the run failed (each rule that fired), or, for a pass, the one rule it met. */
  reasons: string[];
}

/** Whether a failure of this level fails the run: a MUST's always, a SHOULD's with --gate-should, a MAY's never. */
export const gates = (level: CheckResult['level'], gateShould = false): boolean =>
  level === 'MUST' || (gateShould && level === 'SHOULD');

/**
 * design.md: the run passes when every MUST check passed with the baseline applied; it fails on a MUST
 * failure (and a SHOULD one with --gate-should), a baselined failure that passed (xpass), a check that could
 * not be judged, or a run error.
 */
export function gateVerdict(
  results: Pick<Results, 'checks' | 'errors' | 'timing' | 'gateShould' | 'upgrade'>,
): GateVerdict {
  const n = (pred: (c: CheckResult) => boolean) => results.checks.filter(pred).length;
  const must = n((c) => c.status === 'failed' && gates(c.level, results.gateShould));
  const gated = results.gateShould ? 'MUST or SHOULD' : 'MUST';
  const xpass = n((c) => c.status === 'xpass');
  const error = n((c) => c.status === 'error');
  const notRun = n((c) => c.notRun === true);
  // A run cut by its deadline did not do what it was asked: it cannot pass. A budget asks for the cut.
  const cut = notRun > 0 && results.timing?.timeBox.kind !== 'budget';
  const reasons = [
    ...(must ? [`${must} ${gated} check(s) failed outside the baseline`] : []),
    ...(xpass ? [`${xpass} baselined failure(s) no longer fail (xpass): update the baseline`] : []),
    ...(error ? [`${error} check(s) could not be judged: the target stopped answering`] : []),
    ...(cut
      ? [`${notRun} check(s) not run: ${results.timing?.timeBox.spent?.reason ?? 'the deadline was reached'}`]
      : []),
    ...upgradeReasons(results.upgrade),
    ...(results.errors ?? []),
  ];
  if (reasons.length) return { pass: false, reasons };
  const other = n((c) => c.status === 'failed');
  const boxed =
    notRun > 0
      ? `; time-boxed (--budget ${results.timing?.timeBox.seconds} s): ${notRun} check(s) not run, none counted as passed`
      : '';
  return {
    pass: true,
    reasons: [
      `every ${gated} check passed with the baseline applied${other ? `; ${other} ${results.gateShould ? 'MAY' : 'SHOULD/MAY'} failure(s) are reported, not gated` : ''}${boxed}`,
    ],
  };
}

/** The gate's reasons from an upgrade: what it lost or changed outside the baseline. */
function upgradeReasons(upgrade: UpgradeReport | undefined): string[] {
  const { lost, changed } = upgradeFailures(upgrade);
  return [
    ...(lost ? [`${lost} object(s) lost in the upgrade to ${upgrade?.to}`] : []),
    ...(changed ? [`${changed} field(s) changed in the upgrade to ${upgrade?.to}`] : []),
  ];
}

export const exitCodeOf = (results: Pick<Results, 'checks' | 'errors' | 'timing' | 'gateShould' | 'upgrade'>): 0 | 1 =>
  gateVerdict(results).pass ? 0 : 1;

/**
 * Why a run cannot pass whatever its verdicts say: it judged no check (every one skipped or not judged), or
 * the target answered none of its requests (`statuses`: those of the run's exchanges, 0 for no answer).
 */
export function reasonsNothingCounts(results: Pick<Results, 'checks'>, statuses: number[]): string[] {
  const reasons: string[] = [];
  const judged = results.checks.filter((c) => ['passed', 'failed', 'xfail', 'xpass'].includes(c.status)).length;
  if (judged === 0)
    reasons.push(`nothing was judged: all ${results.checks.length} check(s) were skipped or not judged`);
  if (statuses.length > 0 && statuses.every((s) => s === 0))
    reasons.push(`the target never answered: none of the run's ${statuses.length} request(s) got an answer`);
  return reasons;
}
