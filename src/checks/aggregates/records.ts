/**
 * Family `aggregates`: `/count` agrees with `/filter` for the same filter, `/paginate` agrees with both, and
 * `/history` bins the run's own runs as they are.
 */
import { SendingStopped } from '../core/context.js';
import fc from 'fast-check';
import { JudgedOnce } from '../../cases/distinct.js';
import { drawsOf, SentAhead } from '../../cases/sentAhead.js';
import { filterBodyArbitrary, filterCases, noFilterCase } from '../../cases/filters.js';
import type { Obj } from '../../openapi/json.js';
import { nonNull } from '../../model/filters.js';
import { jsonSuccessSchema, type Operation } from '../../openapi/operations.js';
import { is2xx } from '../../openapi/request.js';
import { defineCheck } from '../core/check.js';
import type { CheckContext } from '../core/context.js';
import { historyAgrees, historyShape, recentHistory } from './history.js';
import { scoped } from '../filters/judgeFilter.js';
import { corpusOf, isCoreQuery } from '../core/queryContext.js';
import { fail, isLoadAnswer, pass, skip, Skip, statusKey, unexpected, type Verdict } from '../core/verdict.js';

const isCoreQueryOf = (kind: 'count' | 'paginate') => (op: Operation, ctx: CheckContext) =>
  isCoreQuery(ctx.model, op, kind);

const HISTORY = /^POST \/(flow_runs|task_runs)\/history\/?$/;

/** A history operation of flow or task runs whose answer's shape the document lets the check read. */
const isHistory = (op: Operation, ctx: CheckContext) => HISTORY.test(op.key) && historyShape(ctx, op) !== undefined;

/**
 * The number a count answers, read by its shape (spec §4.2 shows no count body): a bare integer (Prefect), or
 * the one integer property of an object its document describes (`{"count": 3}`).
 */
export function countIn(ctx: CheckContext, op: Operation, json: unknown): unknown {
  if (typeof json === 'number' || !json || typeof json !== 'object') return json;
  const schema = jsonSuccessSchema(op);
  const props = schema ? (nonNull(ctx.model.doc, schema).properties ?? {}) : {};
  const integers = Object.keys(props).filter(
    (k) => (nonNull(ctx.model.doc, props[k]) as { type?: unknown }).type === 'integer',
  );
  return integers.length === 1 ? (json as Obj)[integers[0]] : json;
}

/**
 * `aggregates.count-agrees`: drawn filters of the run's objects, each counted and listed; the count must be the list's
 * length (spec §4.2).
 */
async function countAgrees(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const { q, key } = await corpusOf(ctx, op);
  const model = q.models.get(key);
  if (!model) throw new Skip(`no filter model of ${key}`);
  const cases = filterCases(ctx.model.doc, model, q.semantics, q.built.corpus, q.built.bound, ctx.settings.runTag);
  if (!cases.triples.size) throw new Skip(noFilterCase(key, cases));
  let shown: Verdict | undefined;
  const { seed, runs } = ctx.settings;
  const counts = new JudgedOnce<boolean>();
  // ANDed with the run's ids: a count over a shared workspace then counts only the run's objects. So no
  // `operator: or_`, which would take the ids as one more alternative: the count would be the whole server's
  // (past the filter's page of 200, and with what other clients, or the run's own writes, make meanwhile).
  const sentOf = (body: Obj) => scoped(body, key, q.ids(key), false, q.pageSize(key));
  const countBodyOf = ({ limit: _limit, ...countBody }: Obj) => countBody;
  /** The filter's answer and the count's, asked side by side. */
  const ask = (sent: Obj) =>
    Promise.all([
      q.query(model.op, sent),
      ctx.send({ method: 'POST', template: op.path, path: op.path, json: countBodyOf(sent) }),
    ]);
  const filters = filterBodyArbitrary(model, cases, { anded: true });
  const property = fc.asyncProperty(filters, ({ body }) => {
    const sent = sentOf(body);
    const asked = JSON.stringify(sent);
    // The run ends at the first failure, so an outcome reused is a filter whose count agreed.
    return counts.outcome(asked, async () => {
      const [filtered, counted] = await ahead.answer(asked, () => ask(sent));
      if (!is2xx(counted) || !is2xx(filtered.exchange)) return true; // the contract checks report those
      const size = (filtered.exchange.json as Obj[]).length;
      const count = countIn(ctx, op, counted.json);
      if (count === size) return true;
      shown = fail(
        'aggregate.mismatch',
        'count',
        `count ${JSON.stringify(count)}, filter ${size} for ${JSON.stringify(countBodyOf(sent))}`,
        [counted, filtered.exchange],
        {
          count,
          filtered: size,
        },
      );
      return false;
    });
  });
  const params = { seed, numRuns: runs, endOnFailure: true };
  // The draws' filters and counts, asked side by side before the property judges them one by one.
  const ahead = new SentAhead(
    drawsOf([filters], params).map(([{ body }]) => {
      const sent = sentOf(body);
      return { key: JSON.stringify(sent), send: () => ask(sent) };
    }),
  );
  const result = await fc.check(property, params);
  // The time box stopped sending mid-property: not run, never a counterexample.
  if (result.errorInstance instanceof SendingStopped) throw result.errorInstance;
  return result.failed
    ? ({ ...shown!, seed, path: result.counterexamplePath ?? undefined } as Verdict)
    : pass(`${result.numRuns - counts.repeats} distinct filters`);
}

/**
 * `aggregates.paginate-agrees`: page after page of the run's objects; the pages must hold each object once, none missing
 * (spec §4.3).
 */
async function paginateAgrees(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const { q, key } = await corpusOf(ctx, op);
  const ids = q.ids(key);
  const limit = Math.max(1, Math.ceil(ids.length / 3));
  const seen: string[] = [];
  let first: Obj | undefined;
  const pages = [];
  for (let page = 1; page <= 10; page++) {
    const ex = await ctx.send({
      method: 'POST',
      template: op.path,
      path: op.path,
      json: { ...q.scope(key), limit, page },
    });
    pages.push(ex);
    if (isLoadAnswer(ex)) return unexpected(`page ${page}`, ex);
    if (!is2xx(ex))
      return fail('status.unexpected', statusKey(ex), `page ${page} answered ${ex.status}`, [ex], { page });
    const body = ex.json as Obj;
    first ??= body;
    seen.push(...((body.results as Obj[]) ?? []).map((o) => String(o.id)));
    if (page >= Number(body.pages ?? 0)) break;
  }
  const expectedPages = Math.ceil(ids.length / limit);
  if (first!.count !== ids.length)
    return fail('aggregate.mismatch', 'count', `count is ${first!.count}; the filter selects ${ids.length}`, [
      pages[0],
    ]);
  if (first!.pages !== expectedPages)
    return fail(
      'aggregate.mismatch',
      'pages',
      `pages is ${first!.pages}; ceil(${ids.length}/${limit}) is ${expectedPages}`,
      [pages[0]],
    );
  const union = new Set(seen);
  return union.size === ids.length && seen.length === ids.length
    ? pass(`${expectedPages} pages of ${limit}`)
    : fail(
        'aggregate.mismatch',
        'results',
        `the pages hold ${seen.length} item(s), ${union.size} distinct, of ${ids.length}`,
        pages.slice(0, 3),
      );
}

/**
 * The least interval a history takes, from its document (a minimum, or an exclusive one) or else its profile
 * (Prefect's document says "at least 1 second" in words): one below it is refused with a 4xx.
 */
async function historyInvalidInterval(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const shape = historyShape(ctx, op)!;
  const body = ctx.model.recordOf(op).bodySchema;
  const interval = (body ? nonNull(ctx.model.doc, body).properties?.[shape.interval] : undefined) ?? {};
  const bounds = nonNull(ctx.model.doc, interval) as { minimum?: number; exclusiveMinimum?: number };
  const least = bounds.exclusiveMinimum ?? bounds.minimum ?? ctx.profile.historyMinIntervalSeconds;
  if (least === undefined) return skip('neither the document nor the profile gives the least history interval');
  const below = bounds.exclusiveMinimum !== undefined ? least : least > 0 ? least / 2 : least - 1;
  const ex = (await recentHistory(ctx, op, below))!;
  if (isLoadAnswer(ex)) return unexpected(`an interval of ${below} s`, ex);
  return ex.status >= 400 && ex.status < 500
    ? pass(`answered ${ex.status}`)
    : fail('input.accepted', statusKey(ex), `an interval of ${below} s answered ${ex.status}`, [ex]);
}

export const aggregatesChecks = [
  defineCheck({
    id: 'aggregates.count-agrees',
    level: 'MUST',
    clause: '4.2 (count); 4.3',
    title: 'MUST count exactly what the filter selects, for the same filter',
    isolation: 'reads',
    appliesTo: isCoreQueryOf('count'),
    run: countAgrees,
  }),
  defineCheck({
    id: 'aggregates.paginate-agrees',
    level: 'MUST',
    clause: '4.3 rule 5; OpenAPI document (/paginate)',
    title:
      'MUST page the filter result whole: count is its size, pages is ceil(count/limit), the pages together give it',
    isolation: 'reads',
    appliesTo: isCoreQueryOf('paginate'),
    run: paginateAgrees,
  }),
  defineCheck({
    id: 'aggregates.history',
    isolation: 'reads',
    level: 'MUST',
    clause: '4.2 (history); OpenAPI document',
    title:
      'MUST bin the history by start, end and interval, and count in each bin and state type the runs whose expected start falls in it',
    appliesTo: isHistory,
    run: historyAgrees,
  }),
  defineCheck({
    id: 'aggregates.history-invalid-interval',
    level: 'MUST',
    clause: '4.2 (history); 7',
    title: 'MUST refuse a history interval below the least its document (or profile) gives with a 4xx',
    isolation: 'reads',
    appliesTo: isHistory,
    run: historyInvalidInterval,
  }),
];
