/**
 * Side by side: two runs (or two documents) of the API, A and B. Three parts: document drift between their
 * documents (computed by openapi/drift.ts), the verdict diff per check id, and the behaviour diff where both
 * answered the same generated request (status, shape, order), with identifiers, times and run tags masked.
 */
import { masked, sameShape, type Behaviour } from '../config/exchangeLog.js';
import type { DocumentDrift } from '../openapi/drift.js';
import type { CheckResult, ResultStatus, Results } from './results.js';

export interface ComparedSide {
  label: string;
  results?: Results;
  behaviours?: Behaviour[];
}

type Outcome = 'passes' | 'fails' | 'skipped';

export interface VerdictChange {
  id: string;
  operation: string;
  family: string;
  level: string;
  kind:
    | 'pass → fail'
    | 'fail → pass'
    | 'skipped → ran'
    | 'ran → skipped'
    | 'same verdict, different message'
    | 'same verdict, different failures'
    | 'only in A'
    | 'only in B';
  a?: { status: ResultStatus; message?: string };
  b?: { status: ResultStatus; message?: string };
}

export interface BehaviourDifference {
  kind: 'status' | 'shape' | 'order';
  operation: string;
  request: string;
  a: string;
  b: string;
}

/**
 * Two editions of the API side by side (a local server and a hosted one, SQLite and PostgreSQL): the same
 * release on both sides, or a side whose release could not be read. Routes one side lacks are an edition
 * difference, not a regression; checks one side judged and the other skipped for the run's configuration
 * (credentials given to one side only) are counted apart, not listed as changes.
 */
export interface EditionDifferences {
  /** Why the comparison is one of editions. */
  why: string;
  /** Operations only A's document has (B lacks them), and only B's. */
  onlyA: string[];
  onlyB: string[];
  /** Checks on the lacked operations, not listed among the verdict changes. */
  checksOnLacked: number;
  /** Checks skipped on one side for the run's configuration, by the skip's reason. */
  configuration: Array<{ side: 'A' | 'B'; reason: string; checks: number }>;
}

export interface Comparison {
  a: { label: string; target?: string; seed?: number; checks?: number };
  b: { label: string; target?: string; seed?: number; checks?: number };
  edition?: EditionDifferences;
  drift?: DocumentDrift;
  verdicts?: { compared: number; changes: VerdictChange[] };
  behaviour?: {
    requestsA: number;
    requestsB: number;
    matched: number;
    onlyA: number;
    onlyB: number;
    differences: BehaviourDifference[];
  };
  notes: string[];
}

function outcome(status: ResultStatus): Outcome {
  return status === 'passed' || status === 'xpass'
    ? 'passes'
    : status === 'skipped' || status === 'error'
      ? 'skipped'
      : 'fails';
}

/** A message with what differs between any two runs masked: ids, times, run tags, URLs, and numbers. */
function maskedMessage(message: string | undefined, results: Results): string {
  return masked((message ?? '').split(results.target.baseUrl).join('<base>'), results.runTag)
    .replace(/conformance-[a-z0-9]+-[a-z0-9]+/g, '<run>')
    .replace(/\d+(\.\d+)?/g, '#');
}

/** The typed failures of a failing verdict, as a comparable set; undefined for a verdict without them. */
function failureSet(c: CheckResult): string | undefined {
  return c.failures
    ?.map((f) => `${f.kind} ${f.key}`)
    .sort()
    .join('\n');
}

function verdictDiff(a: Results, b: Results): NonNullable<Comparison['verdicts']> {
  const key = (c: CheckResult) => `${c.id} ${c.operation}`;
  const inB = new Map(b.checks.map((c) => [key(c), c]));
  const inA = new Map(a.checks.map((c) => [key(c), c]));
  const changes: VerdictChange[] = [];
  const side = (c: CheckResult) => ({ status: c.status, message: c.message });
  for (const ca of a.checks) {
    const cb = inB.get(key(ca));
    const base = { id: ca.id, operation: ca.operation, family: ca.family, level: ca.level };
    if (!cb) {
      changes.push({ ...base, kind: 'only in A', a: side(ca) });
      continue;
    }
    const [oa, ob] = [outcome(ca.status), outcome(cb.status)];
    let kind: VerdictChange['kind'] | undefined;
    if (oa === 'passes' && ob === 'fails') kind = 'pass → fail';
    else if (oa === 'fails' && ob === 'passes') kind = 'fail → pass';
    else if (oa === 'skipped' && ob !== 'skipped') kind = 'skipped → ran';
    else if (oa !== 'skipped' && ob === 'skipped') kind = 'ran → skipped';
    // Two failures are told apart by their kinds and keys; a message only where a verdict carries none.
    else if (oa === 'fails' && failureSet(ca) !== undefined && failureSet(cb) !== undefined) {
      if (failureSet(ca) !== failureSet(cb)) kind = 'same verdict, different failures';
    } else if (oa !== 'skipped' && maskedMessage(ca.message, a) !== maskedMessage(cb.message, b))
      kind = 'same verdict, different message';
    if (kind) changes.push({ ...base, kind, a: side(ca), b: side(cb) });
  }
  for (const cb of b.checks)
    if (!inA.has(key(cb)))
      changes.push({
        id: cb.id,
        operation: cb.operation,
        family: cb.family,
        level: cb.level,
        kind: 'only in B',
        b: side(cb),
      });
  return { compared: [...inA.keys()].filter((k) => inB.has(k)).length, changes };
}

function byKey(list: Behaviour[]): Map<string, Behaviour[]> {
  const out = new Map<string, Behaviour[]>();
  for (const b of list) (out.get(b.key) ?? out.set(b.key, []).get(b.key)!).push(b);
  return out;
}

const tally = (values: string[]) => [...values].sort().join(', ');

/**
 * Exchanges are paired by their masked request. Several exchanges of the same request (a repeated GET)
 * are compared as multisets, so that the order in which concurrent requests finished is not a difference.
 */
function behaviourDiff(a: Behaviour[], b: Behaviour[]): NonNullable<Comparison['behaviour']> {
  const ka = byKey(a);
  const kb = byKey(b);
  const differences: BehaviourDifference[] = [];
  let matched = 0;
  for (const [k, la] of ka) {
    const lb = kb.get(k);
    // Two requests racing on purpose: the check judges the race, and which of them won is chance.
    if (!lb || la[0].request.includes(' [racing]')) continue;
    matched++;
    const first = la[0];
    const where = { operation: `${first.method} ${first.template}`, request: first.request };
    const statusA = tally(la.map((x) => String(x.status)));
    const statusB = tally(lb.map((x) => String(x.status)));
    // The same request sent a different number of times (a check that ran on one side only) differs only
    // where one side answered a status the other never did.
    const distinct = (l: Behaviour[]) => tally([...new Set(l.map((x) => String(x.status)))]);
    const differs = la.length === lb.length ? statusA !== statusB : distinct(la) !== distinct(lb);
    if (differs) {
      differences.push({ ...where, kind: 'status', a: statusA, b: statusB });
      continue;
    }
    // Arrays are compared only when both served the same items: an unscoped listing holds whatever the
    // database held at that moment, and two runs never hold the same at the same moment.
    const [ia, ib] = [la.filter((x) => x.items), lb.filter((x) => x.items)];
    const sameSet = (x: string[], y: string[]) => tally(x) === tally(y);
    const objectsA = la.filter((x) => !x.items);
    const objectsB = lb.filter((x) => !x.items);
    const unmatched = objectsA.filter((xa) => !objectsB.some((xb) => sameShape(xa.shape ?? null, xb.shape ?? null)));
    if (unmatched.length > 0) {
      differences.push({
        ...where,
        kind: 'shape',
        a: `${objectsA.length} answer(s) of status ${statusA}`,
        b: 'the same statuses, other JSON types or fields',
      });
      continue;
    }
    for (const xa of ia) {
      const partner = ib.find((xb) => sameSet(xa.items!, xb.items!));
      if (!partner) continue;
      if (!sameShape(partner.shape ?? null, xa.shape ?? null)) {
        differences.push({
          ...where,
          kind: 'shape',
          a: `${xa.items!.length} items`,
          b: 'the same items, other JSON types or fields',
        });
        break;
      }
      const explained = (xa.orders ?? []).some((o) => partner.orders?.includes(o));
      if (partner.items!.join() !== xa.items!.join() && !explained) {
        const positions = xa.items!.map((h) => partner.items!.indexOf(h));
        differences.push({
          ...where,
          kind: 'order',
          a: `${xa.items!.length} items in order 1…${xa.items!.length}`,
          b: `the same items in order ${positions.map((p) => p + 1).join(',')}`,
        });
        break;
      }
    }
  }
  return {
    requestsA: a.length,
    requestsB: b.length,
    matched,
    onlyA: [...ka.keys()].filter((k) => !kb.has(k)).length,
    onlyB: [...kb.keys()].filter((k) => !ka.has(k)).length,
    differences,
  };
}

/** A run's target as a comparison names it: its label, else its URL with the release the server reported. */
export function targetName(target: Results['target']): string {
  if (target.label) return target.label;
  return target.serverVersion ? `${target.baseUrl} (server ${target.serverVersion})` : target.baseUrl;
}

/** The release a run's target runs, as the run found it. */
const releaseOf = (r: Results) => r.target.identity?.release?.version ?? r.target.serverVersion;

/** Why two runs are editions of one release (see EditionDifferences), or undefined when they are not. */
function editionsWhy(a: Results, b: Results): string | undefined {
  const [ra, rb] = [releaseOf(a), releaseOf(b)];
  if (ra && rb) return ra === rb ? `both sides run release ${ra}` : undefined;
  // Two sides of unknown releases may be two releases of one server: a route gone is then a regression.
  if (!ra && !rb) return undefined;
  return `${ra ? 'A' : 'B'} runs release ${ra ?? rb}, and the release of ${ra ? 'B' : 'A'} could not be read: the sides are compared as editions of it`;
}

/** A skip that says the run was configured so (no credentials, not disposable, read-only), not the target. */
const CONFIGURATION_SKIP = /no credentials configured|--disposable|CONFORMANCE_DISPOSABLE_TARGET|read-only mode/;

/** The editions' differences, and the verdict changes left to list once they are set apart. */
function editionDifferences(
  a: Results,
  b: Results,
  why: string,
  changes: VerdictChange[],
): { edition: EditionDifferences; changes: VerdictChange[] } {
  const ops = (r: Results) => new Set(r.operations.map((o) => `${o.method} ${o.path}`));
  const [opsA, opsB] = [ops(a), ops(b)];
  const onlyA = [...opsA].filter((o) => !opsB.has(o)).sort();
  const onlyB = [...opsB].filter((o) => !opsA.has(o)).sort();
  const lacked = new Set([...onlyA, ...onlyB]);
  const configuration = new Map<string, { side: 'A' | 'B'; reason: string; checks: number }>();
  const kept: VerdictChange[] = [];
  let checksOnLacked = 0;
  for (const v of changes) {
    if ((v.kind === 'only in A' || v.kind === 'only in B') && lacked.has(v.operation)) {
      checksOnLacked++;
      continue;
    }
    const skipped =
      v.kind === 'skipped → ran'
        ? { side: 'A' as const, ...v.a }
        : v.kind === 'ran → skipped'
          ? { side: 'B' as const, ...v.b }
          : undefined;
    if (skipped?.message && CONFIGURATION_SKIP.test(skipped.message)) {
      const key = `${skipped.side} ${skipped.message}`;
      const seen = configuration.get(key) ?? { side: skipped.side, reason: skipped.message!, checks: 0 };
      seen.checks++;
      configuration.set(key, seen);
      continue;
    }
    kept.push(v);
  }
  return {
    edition: { why, onlyA, onlyB, checksOnLacked, configuration: [...configuration.values()] },
    changes: kept,
  };
}

export function compareRuns(a: ComparedSide, b: ComparedSide, drift?: DocumentDrift): Comparison {
  const notes: string[] = [];
  const describe = (s: ComparedSide) => ({
    label: s.label,
    target: s.results ? targetName(s.results.target) : undefined,
    seed: s.results?.seed,
    checks: s.results?.checks.length,
  });
  const verdicts = a.results && b.results ? verdictDiff(a.results, b.results) : undefined;
  if (!verdicts) notes.push('verdict diff: needs a results.json on both sides');
  const behaviour = a.behaviours && b.behaviours ? behaviourDiff(a.behaviours, b.behaviours) : undefined;
  if (!behaviour)
    notes.push('behaviour diff: needs the exchange log (.run/exchanges.jsonl beside results.json) on both sides');
  if (a.results && b.results && a.results.seed !== b.results.seed)
    notes.push(
      `the two runs used different seeds (${a.results.seed}, ${b.results.seed}): few generated requests will match`,
    );
  if (!drift) notes.push('document drift: needs the OpenAPI document of both sides');
  const why = a.results && b.results ? editionsWhy(a.results, b.results) : undefined;
  const editions = why && verdicts ? editionDifferences(a.results!, b.results!, why, verdicts.changes) : undefined;
  const edition = editions?.edition;
  const listed = editions && verdicts ? { ...verdicts, changes: editions.changes } : verdicts;
  // Between editions, a route one side lacks is their difference, not a change of the other's document.
  const lacked = new Set([...(edition?.onlyA ?? []), ...(edition?.onlyB ?? [])]);
  const shownDrift =
    drift && edition
      ? {
          ...drift,
          changes: drift.changes.filter(
            (d) => !(lacked.has(d.operation) && (d.kind === 'operation removed' || d.kind === 'operation added')),
          ),
        }
      : drift;
  return { a: describe(a), b: describe(b), edition, drift: shownDrift, verdicts: listed, behaviour, notes };
}

/**
 * The comparison's verdict in one line, the first thing compare.md and compare.html say: what changed, the
 * regressions first, each count only where it is not zero; "nothing changed" where nothing did.
 */
export function comparisonVerdict(c: Comparison): string {
  const counted = (n: number, what: string) => (n > 0 ? [`${n} ${what}`] : []);
  const kinds = (kind: VerdictChange['kind']) => c.verdicts?.changes.filter((v) => v.kind === kind).length ?? 0;
  const regressions = [
    ...counted(kinds('pass → fail'), 'check(s) that passed on A fail on B'),
    ...counted(c.drift?.changes.filter((d) => d.breaking).length ?? 0, 'breaking document change(s)'),
  ];
  const others = [
    ...counted(kinds('fail → pass'), 'fixed'),
    ...counted(c.edition?.onlyA.length ?? 0, 'route(s) B lacks (an edition difference)'),
    ...counted(c.edition?.onlyB.length ?? 0, 'route(s) A lacks (an edition difference)'),
    ...counted(c.drift?.changes.filter((d) => !d.breaking).length ?? 0, 'non-breaking document change(s)'),
    ...counted(c.behaviour?.differences.length ?? 0, 'behaviour difference(s) on the same requests'),
  ];
  const changed = [...regressions, ...others];
  return `${comparisonRegressed(c) ? 'REGRESSED' : 'NO REGRESSION'}: ${changed.length ? changed.join(', ') : 'nothing changed'}`;
}

/** The rule the verdict follows, said under it. */
export const COMPARISON_RULE =
  'B regresses when a check that passed on A fails on B, or when a document change breaks A’s clients; a route one edition lacks is not a regression.';

/** A comparison that gates: B regressed against A (a check passed on A and fails on B), or B's document breaks A's clients. */
export function comparisonRegressed(c: Comparison): boolean {
  return (
    (c.verdicts?.changes.some((v) => v.kind === 'pass → fail') ?? false) ||
    (c.drift?.changes.some((d) => d.breaking) ?? false)
  );
}
