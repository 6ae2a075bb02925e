/**
 * Family `filters` (spec §4.3): the server's answer to generated filters equals the oracle's, as sets of
 * the run's own objects; the seed's own example; the edge operands. Failures shrink to a minimal filter.
 */
import fc from 'fast-check';
import { JudgedOnce } from '../cases/distinct.js';
import { drawsOf, SentAhead } from '../cases/sentAhead.js';
import { bodyOf, filterBodyArbitrary, filterCases, noFilterCase, tripleOf, type Criterion } from '../cases/filters.js';
import { SendingStopped, type Exchange, type CheckContext } from './context.js';
import type { FilterModel } from '../model/filters.js';
import { evaluate, Unsupported, withReading, type FilterSemantics, type Obj } from '../model/oracle.js';
import { emptyPatternsApplied, isOpenOperand } from '../model/profiles/operators.js';
import { is2xx } from '../openapi/request.js';
import { defineCheck } from './check.js';
import type { Operation } from '../openapi/operations.js';
import { coreModelOf, corpusOf, isCoreFilter, type QueryContext, requireCorpus } from './queryContext.js';
import { fail, pass, skip, type Verdict } from './verdict.js';

/** The page a filter is asked for; an `or_` filter's answer that fills it is read on (`ownAcrossPages`). */
const PAGE = 200;
/** Pages an `or_` filter is read to, at most: past them the run's own objects may lie unread. */
const OR_PAGES = 10;

/** Scope a body to the run's own objects: `id.any_` ANDed in, unless the filter ORs its fields. */
export function scoped(body: Obj, own: string, ids: string[], or: boolean): Obj {
  if (or) return { ...body, limit: PAGE };
  const ownFilter = { ...((body[own] as Obj) ?? {}) };
  ownFilter.id = { ...((ownFilter.id as Obj) ?? {}), any_: (ownFilter.id as Obj | undefined)?.any_ ?? ids };
  return { ...body, [own]: ownFilter, limit: PAGE };
}

/**
 * The run's own objects among all an `or_` filter selects, page after page from the first answer. Such a
 * filter cannot be scoped (the run's ids would be one more alternative), so on a server that holds more than
 * a page of matching objects the run's own may lie past the first page. Read on until a page is not full, up
 * to OR_PAGES pages; `complete` is false when the last page read was still full. `exchange` is the first
 * page's, or the page that was refused: the answer a failure shows.
 */
async function ownAcrossPages(
  q: QueryContext,
  op: Operation,
  sent: Obj,
  first: { exchange: Exchange; ids: string[] },
): Promise<{ exchange: Exchange; ids: string[]; complete: boolean }> {
  const ids = new Set(first.ids);
  let page = first.exchange;
  for (let n = 1; ; n++) {
    if (!is2xx(page)) return { exchange: page, ids: [...ids], complete: true };
    const full = Array.isArray(page.json) && page.json.length >= PAGE;
    if (!full || n >= OR_PAGES) return { exchange: first.exchange, ids: [...ids], complete: !full };
    const next = await q.query(op, { ...sent, offset: n * PAGE });
    for (const id of next.ids) ids.add(id);
    page = next.exchange;
  }
}

/** The semantics with empty patterns read the other way the spec allows. */
const withEmptyPatternsApplied = (semantics: FilterSemantics): FilterSemantics => ({
  ...semantics,
  operators: { ...semantics.operators, ...emptyPatternsApplied },
});

/** A filter the server answered otherwise than the oracle. */
interface Mismatch {
  body: Obj;
  criteria: Criterion[];
  server: string[];
  oracle: Set<string>;
  exchange: Exchange;
}

/** Two answers as sets of ids: equal, or what one has more and fewer of. */
function setDifference(server: string[], oracle: Set<string>) {
  return { extra: server.filter((id) => !oracle.has(id)), missing: [...oracle].filter((id) => !server.includes(id)) };
}

/** A drawn filter as sent, with the oracle's answer; undefined for a filter the oracle cannot evaluate. */
function oracleQuery(q: QueryContext, model: FilterModel, key: string) {
  return ({ body, or }: { body: Obj; or: boolean }) => {
    try {
      const expected = evaluate(model, q.semantics, q.built.corpus, body);
      const sent = scoped(body, key, q.ids(key), or);
      return { sent, expected, key: JSON.stringify(sent) };
    } catch (e) {
      if (e instanceof Unsupported) return undefined;
      throw e;
    }
  };
}

/** What agreed with the oracle, and what was implementation-defined or read only in part. */
function agreedLine(
  edges: number,
  generated: number,
  implementationDefined: Set<string>,
  otherReadings: Set<string>,
  unread: number,
): string {
  const empty = implementationDefined.size
    ? `; implementation-defined: the server applies an empty pattern as "%" (null excluded) on ${[...implementationDefined].sort().join(', ')}`
    : '';
  const readings = [...otherReadings].map((r) => `; implementation-defined: ${r}`).join('');
  const partly = unread
    ? `; ${unread} or_ filter(s) selected more than ${OR_PAGES * PAGE} of the server's objects: judged only by what they should not select of the run's`
    : '';
  return `${edges} edge and ${generated} distinct generated filters agreed with the oracle${empty}${readings}${partly}`;
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

async function oracle(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const { q, key } = await corpusOf(ctx, op, 0);
  const model = q.models.get(key);
  if (!model || !q.built.corpus[key]?.length)
    return skip(`no corpus of ${key}: ${q.built.missing[key] ?? 'no filter model'}`);
  const cases = filterCases(ctx.model.doc, model, q.semantics, q.built.corpus, q.built.bound, ctx.settings.runTag);
  for (const [triple, reason] of cases.unknown) ctx.noteFilterCoverage(triple, { skipped: reason });
  if (!cases.triples.size) return skip(noFilterCase(key, cases));
  let last: Mismatch | undefined;
  const implementationDefined = new Set<string>();
  const otherReadings = new Set<string>();
  let unread = 0;
  const examples = cases.examples.map(
    (c) => [{ body: bodyOf([c]), criteria: [c], or: false }] as [{ body: Obj; criteria: Criterion[]; or: boolean }],
  );
  const { runs, seed } = ctx.settings;
  let budget = examples.length + runs * 3 + 40;
  const agreed = new JudgedOnce<Mismatch | undefined>();
  /** The server's answer to a filter, against the oracle's: undefined when they agree. */
  const compare = async (
    body: Obj,
    sent: Obj,
    criteria: Criterion[],
    expected: Set<string>,
    or: boolean,
  ): Promise<Mismatch | undefined> => {
    if (budget-- <= 0) return undefined;
    for (const c of criteria) ctx.noteFilterCoverage(tripleOf(c), { checked: 1 });
    const first = await ahead.answer(JSON.stringify(sent), () => q.query(op, sent));
    const { exchange, ids, complete } = or ? await ownAcrossPages(q, op, sent, first) : { ...first, complete: true };
    const same = (oracle: Set<string>) => ids.length === oracle.size && ids.every((id) => oracle.has(id));
    if (is2xx(exchange) && same(expected)) return undefined;
    // An empty pattern means what the implementation makes of it: either reading agrees, and is reported.
    const open = criteria.filter((c) => isOpenOperand(c.operator, c.operand)).map(tripleOf);
    if (
      is2xx(exchange) &&
      open.length > 0 &&
      same(evaluate(model, withEmptyPatternsApplied(q.semantics), q.built.corpus, body))
    ) {
      for (const triple of open) implementationDefined.add(triple);
      return undefined;
    }
    // A criterion the spec leaves open, read the other way a release of the profile reads it.
    for (const reading of q.semantics.otherReadings ?? []) {
      const concerned = criteria.filter((c) => reading.applies(c));
      if (!is2xx(exchange) || !concerned.length) continue;
      if (same(evaluate(model, withReading(q.semantics, reading), q.built.corpus, body))) {
        otherReadings.add(reading.description);
        return undefined;
      }
    }
    // Read to its last page, an or_ filter that still selects more can only be judged by what it should not select.
    if (is2xx(exchange) && !complete && ids.every((id) => expected.has(id))) {
      unread++;
      return undefined;
    }
    return { body: sent, criteria, server: is2xx(exchange) ? ids : [], oracle: expected, exchange };
  };
  const queryOf = oracleQuery(q, model, key);
  const filters = filterBodyArbitrary(model, cases);
  const property = fc.asyncProperty(filters, async (drawn) => {
    const query = queryOf(drawn);
    if (!query) return true;
    const mismatch = await agreed.outcome(query.key, () =>
      compare(drawn.body, query.sent, drawn.criteria, query.expected, drawn.or),
    );
    if (mismatch) last = mismatch;
    return !mismatch;
  });
  const params = { seed, numRuns: examples.length + runs * 3, examples, endOnFailure: false };
  // The draws' filters, sent side by side before the property judges them one by one.
  const ahead = new SentAhead(
    drawsOf([filters], params).map(([drawn]) => {
      const query = queryOf(drawn);
      return query && { key: query.key, send: () => q.query(op, query.sent) };
    }),
  );
  // A filter drawn again (or met again while shrinking) is judged by its first answer, not sent twice.
  const result = await fc.check(property, params);
  // The time box stopped sending mid-property: not run, never a counterexample; unless a mismatch was
  // already seen (then stopped while shrinking): that failure stands, unshrunk, without a replay path.
  const stopped = result.errorInstance instanceof SendingStopped;
  if (stopped && !last) throw result.errorInstance;
  if (!result.failed)
    return pass(
      agreedLine(
        examples.length,
        result.numRuns - examples.length - agreed.repeats,
        implementationDefined,
        otherReadings,
        unread,
      ),
    );
  return mismatchVerdict(last!, seed, stopped ? undefined : (result.counterexamplePath ?? undefined));
}

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
  const { exchange, ids } = await q.query(op, scoped(body, 'flows', q.ids('flows'), false));
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

async function anyEmptyMatchesNothing(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const { q, key } = await corpusOf(ctx, op);
  const field = q.models.get(key)?.filters[key]?.fields.find((f) => f.path.join('.') !== 'id' && 'any_' in f.operators);
  if (!field) return skip(`no field of ${key} takes any_ besides id`);
  const criterion: Obj = {};
  field.path.reduce((node, p, i) => (node[p] = i === field.path.length - 1 ? { any_: [] } : {}) as Obj, criterion);
  const { exchange, ids } = await q.query(op, { [key]: { id: { any_: q.ids(key) }, ...criterion }, limit: 200 });
  const name = `${key}.${field.path.join('.')}.any_`;
  if (!is2xx(exchange)) return fail('status.unexpected', exchange.status, `answered ${exchange.status}`, [exchange]);
  return ids.length === 0
    ? pass(`${field.path.join('.')}.any_: []`)
    : fail('oracle.mismatch', name, `${field.path.join('.')}.any_: [] matched ${ids.length} object(s)`, [exchange]);
}

export const filtersChecks = [
  defineCheck({
    id: 'filters.oracle',
    level: 'MUST',
    clause: '4.3',
    catches: 10,
    title: "MUST select exactly the objects the filter describes (compared with an oracle over the run's own objects)",
    exchangesPerCase: 212,
    isolation: 'reads',
    appliesTo: isCoreFilter,
    run: oracle,
  }),
  defineCheck({
    id: 'filters.seed-example',
    level: 'MUST',
    clause: '4.3 rule 4',
    catches: 1,
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
