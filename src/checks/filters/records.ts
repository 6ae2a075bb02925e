/**
 * Family `filters` (spec §4.3): the server's answer to generated filters equals the oracle's, as sets of
 * the run's own objects; the seed's own example; the edge operands. Failures shrink to a minimal filter.
 */
import fc from 'fast-check';
import { JudgedOnce } from '../../cases/distinct.js';
import { drawsOf, SentAhead } from '../../cases/sentAhead.js';
import { bodyOf, filterBodyArbitrary, filterCases, noFilterCase, tripleOf } from '../../cases/filters.js';
import { SendingStopped, type CheckContext } from '../core/context.js';
import type { FilterModel } from '../../model/filters.js';
import { evaluate, Unsupported } from '../../model/oracle.js';
import type { Obj } from '../../openapi/json.js';
import { is2xx } from '../../openapi/request.js';
import { defineCheck } from '../core/check.js';
import type { Operation } from '../../openapi/operations.js';
import { coreModelOf, corpusOf, isCoreFilter, type QueryContext, requireCorpus } from '../core/queryContext.js';
import { fail, isLoadAnswer, pass, skip, unexpected, type Verdict } from '../core/verdict.js';
import {
  type Drawn,
  judgeFilter,
  type Mismatch,
  OR_PAGES,
  type OracleRun,
  scoped,
  setDifference,
} from './judgeFilter.js';

/** A drawn filter as sent, with the oracle's answer; undefined for a filter the oracle cannot evaluate. */
function oracleQuery(q: QueryContext, model: FilterModel, key: string) {
  return ({ body, or }: { body: Obj; or: boolean }) => {
    try {
      const expected = evaluate(model, q.semantics, q.built.corpus, body);
      const sent = scoped(body, key, q.ids(key), or, q.pageSize(key));
      return { sent, expected, key: JSON.stringify(sent) };
    } catch (e) {
      if (e instanceof Unsupported) return undefined;
      throw e;
    }
  };
}

/** What agreed with the oracle, and what was implementation-defined, read only in part or not judged for load. */
function agreedLine(
  edges: number,
  generated: number,
  { implementationDefined, otherReadings, unread, busy }: OracleRun,
  pageSize: number,
): string {
  const empty = implementationDefined.size
    ? `; implementation-defined: the server applies an empty pattern as "%" (null excluded) on ${[...implementationDefined].sort().join(', ')}`
    : '';
  const readings = [...otherReadings].map((r) => `; implementation-defined: ${r}`).join('');
  const partly = unread
    ? `; ${unread} or_ filter(s) selected more than ${OR_PAGES * pageSize} of the server's objects: judged only by what they should not select of the run's`
    : '';
  const load = busy ? `; ${busy} met a busy server through the retries (load, not judged)` : '';
  return `${edges} edge and ${generated} distinct generated filters agreed with the oracle${empty}${readings}${partly}${load}`;
}

/** The last mismatch, shrunk where the property could, as the check's failure with its seed and path. */
function mismatchVerdict(l: Mismatch, seed: number, path: string | undefined): Verdict {
  const { extra, missing } = setDifference(l.server, l.oracle);
  const criteria = [...new Set(l.criteria.map(tripleOf))].sort();
  return {
    ...fail(
      'oracle.mismatch',
      criteria.join(' ') || 'scope',
      `${JSON.stringify(l.body)} → server ${l.exchange.status}: ${extra.length} more than the oracle (${extra.slice(0, 3).join(', ')}), ${missing.length} fewer (${missing.slice(0, 3).join(', ')})`,
      [l.exchange],
      { criteria, extra: extra.length, missing: missing.length, status: l.exchange.status },
    ),
    seed,
    path,
  } as Verdict;
}

/**
 * `filters.oracle`: drawn filters of the run's corpus, each answer held to what the oracle evaluates over the
 * corpus; a mismatch is shrunk to its smallest filter.
 */
async function oracle(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const { q, key } = await corpusOf(ctx, op, 0);
  const model = q.models.get(key);
  if (!model || !q.built.corpus[key]?.length)
    return skip(`no corpus of ${key}: ${q.built.missing[key] ?? 'no filter model'}`);
  const cases = filterCases(ctx.model.doc, model, q.semantics, q.built.corpus, q.built.bound, ctx.settings.runTag);
  for (const [triple, reason] of cases.unknown) ctx.noteFilterCoverage(triple, { skipped: reason });
  if (!cases.triples.size) return skip(noFilterCase(key, cases));
  const examples = cases.examples.map((c) => [{ body: bodyOf([c]), criteria: [c], or: false }] as [Drawn]);
  const { runs, seed } = ctx.settings;
  const run: OracleRun = {
    ctx,
    op,
    q,
    model,
    budget: examples.length + runs * 3 + 40,
    implementationDefined: new Set(),
    otherReadings: new Set(),
    unread: 0,
    busy: 0,
  };
  let last: Mismatch | undefined;
  // A filter drawn again (or met again while shrinking) is judged by its first answer, not sent twice.
  const agreed = new JudgedOnce<Mismatch | undefined>();
  const queryOf = oracleQuery(q, model, key);
  const filters = filterBodyArbitrary(model, cases);
  const property = fc.asyncProperty(filters, async (drawn) => {
    const query = queryOf(drawn);
    if (!query) return true;
    const mismatch = await agreed.outcome(query.key, () => judgeFilter(run, drawn, query.sent, query.expected));
    if (mismatch) last = mismatch;
    return !mismatch;
  });
  const params = { seed, numRuns: examples.length + runs * 3, examples, endOnFailure: false };
  run.ahead = new SentAhead(
    drawsOf([filters], params).map(([drawn]) => {
      const query = queryOf(drawn);
      return query && { key: query.key, send: () => q.query(op, query.sent) };
    }),
  );
  const result = await fc.check(property, params);
  // The time box stopped sending mid-property: not run, never a counterexample; unless a mismatch was
  // already seen (then stopped while shrinking): that failure stands, unshrunk, without a replay path.
  const stopped = result.errorInstance instanceof SendingStopped;
  if (stopped && !last) throw result.errorInstance;
  if (!result.failed) {
    const generated = result.numRuns - examples.length - agreed.repeats;
    if (run.busy >= examples.length + generated)
      return skip('every filter met a busy server through the retries: load, not judged');
    return pass(agreedLine(examples.length, generated, run, q.pageSize(key)));
  }
  return mismatchVerdict(last!, seed, stopped ? undefined : (result.counterexamplePath ?? undefined));
}

/**
 * `filters.seed-example`: the spec's own cross-collection example (tagged flows with a FAILED run) against the
 * oracle.
 */
async function seedExample(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const { q } = await corpusOf(ctx, op, 0);
  requireCorpus(q, 'flows');
  requireCorpus(q, 'flow_runs');
  const body = {
    flows: { tags: { all_: [q.built.tags[0]] } },
    flow_runs: { state: { type: { any_: ['FAILED'] } } },
  };
  const expected = evaluate(q.models.get('flows')!, q.semantics, q.built.corpus, body);
  if (expected.size === 0) return skip('the corpus has no tagged flow with a FAILED run');
  const { exchange, ids } = await q.query(op, scoped(body, 'flows', q.ids('flows'), false, q.pageSize('flows')));
  if (isLoadAnswer(exchange)) return unexpected('the example filter', exchange);
  const { extra, missing } = setDifference(ids, expected);
  return extra.length + missing.length === 0
    ? pass(`${ids.length} flow(s)`)
    : fail(
        'oracle.mismatch',
        'flows.tags.all_ flow_runs.state.type.any_',
        `server ${JSON.stringify(ids)}, expected ${JSON.stringify([...expected])}`,
        [exchange],
      );
}

/** `filters.any-empty-matches-nothing`: `any_: []` on a field besides id must match nothing. */
async function anyEmptyMatchesNothing(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const { q, key } = await corpusOf(ctx, op);
  const field = q.models.get(key)?.filters[key]?.fields.find((f) => f.path.join('.') !== 'id' && 'any_' in f.operators);
  if (!field) return skip(`no field of ${key} takes any_ besides id`);
  const criterion: Obj = {};
  field.path.reduce((node, p, i) => (node[p] = i === field.path.length - 1 ? { any_: [] } : {}) as Obj, criterion);
  const { exchange, ids } = await q.query(op, {
    [key]: { id: { any_: q.ids(key) }, ...criterion },
    limit: q.pageSize(key),
  });
  const name = `${key}.${field.path.join('.')}.any_`;
  if (isLoadAnswer(exchange)) return unexpected(`${name}: []`, exchange);
  if (!is2xx(exchange)) return fail('status.unexpected', exchange.status, `answered ${exchange.status}`, [exchange]);
  return ids.length === 0
    ? pass(`${field.path.join('.')}.any_: []`)
    : fail('oracle.mismatch', name, `${field.path.join('.')}.any_: [] matched ${ids.length} object(s)`, [exchange]);
}

export const filtersChecks = [
  defineCheck({
    id: 'filters.oracle',
    level: 'MUST',
    clause: '4.3; 4.3 rule 1; 4.3 rule 2; 4.3 rule 3',
    title: "MUST select exactly the objects the filter describes (compared with an oracle over the run's own objects)",
    isolation: 'reads',
    appliesTo: isCoreFilter,
    run: oracle,
  }),
  defineCheck({
    id: 'filters.seed-example',
    level: 'MUST',
    clause: '4.3 rule 4',
    title: 'MUST find the flows tagged with the given tags that have FAILED runs',
    isolation: 'reads',
    appliesTo: (op, ctx) => isCoreFilter(op, ctx) && coreModelOf(ctx.model, op) === 'flows',
    run: seedExample,
  }),
  defineCheck({
    id: 'filters.any-empty-matches-nothing',
    level: 'MUST',
    clause: '4.3 (any_: the field matches any of the values, so of none, nothing)',
    title: 'MUST match nothing with any_ of an empty list',
    isolation: 'reads',
    appliesTo: isCoreFilter,
    run: anyEmptyMatchesNothing,
  }),
];
