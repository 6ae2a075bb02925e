/**
 * Family `aggregates`: `/count` agrees with `/filter` for the same filter, `/paginate` agrees with both, and
 * `/history` bins the run's own runs as they are.
 */
import { SendingStopped } from './context.js';
import fc from 'fast-check';
import { JudgedOnce } from '../cases/distinct.js';
import { drawsOf, SentAhead } from '../cases/sentAhead.js';
import { filterBodyArbitrary, filterCases, noFilterCase } from '../cases/filters.js';
import type { Obj } from '../openapi/json.js';
import { micros } from '../model/profiles/operators.js';
import { resolveRef, type Operation } from '../openapi/operations.js';
import { is2xx } from '../openapi/request.js';
import { defineCheck } from './check.js';
import type { CheckContext } from './context.js';
import { scoped } from './filters/oracle.js';
import { corpusOf, isCoreQuery, queryContext } from './queryContext.js';
import { fail, pass, Skip, statusKey, type Verdict } from './verdict.js';

const isCoreQueryOf = (kind: 'count' | 'paginate') => (op: Operation, ctx: CheckContext) =>
  isCoreQuery(ctx.model, op, kind);

const HISTORY = /^POST \/(flow_runs|task_runs)\/history\/?$/;

/** The body fields of a history operation, read off its schema (`history_interval_seconds` in Prefect 3). */
function historyFields(ctx: CheckContext, op: Operation): { interval: string } | undefined {
  const schema = ctx.model.recordOf(op).bodySchema;
  const props = schema
    ? Object.keys((resolveRef<{ properties?: object }>(ctx.model.doc, schema).properties ?? {}) as object)
    : [];
  const interval = props.find((p) => p.startsWith('history_interval'));
  return interval && props.includes('history_start') && props.includes('history_end') ? { interval } : undefined;
}

const isHistory = (op: Operation, ctx: CheckContext) => HISTORY.test(op.key) && historyFields(ctx, op) !== undefined;

function historyOf(
  ctx: CheckContext,
  op: Operation,
  key: string,
  ids: string[],
  start: number,
  end: number,
  intervalSeconds: number,
) {
  const fields = historyFields(ctx, op)!;
  return ctx.send({
    method: 'POST',
    template: op.path,
    path: op.path,
    json: {
      history_start: new Date(start).toISOString(),
      history_end: new Date(end).toISOString(),
      [fields.interval]: intervalSeconds,
      [key]: { id: { any_: ids } },
    },
  });
}

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
  const sentOf = (body: Obj) => scoped(body, key, q.ids(key), false);
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
      if (counted.json === size) return true;
      shown = fail(
        'aggregate.mismatch',
        'count',
        `count ${JSON.stringify(counted.json)}, filter ${size} for ${JSON.stringify(countBodyOf(sent))}`,
        [counted, filtered.exchange],
        {
          count: counted.json,
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

async function historyInvalidInterval(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const now = Date.now();
  const ex = await historyOf(ctx, op, op.path.split('/')[1], [], now - 3_600_000, now, 0.5);
  return ex.status >= 400 && ex.status < 500
    ? pass(`answered ${ex.status}`)
    : fail('input.accepted', statusKey(ex), `an interval of 0.5 s answered ${ex.status}`, [ex]);
}

export const aggregatesChecks = [
  defineCheck({
    id: 'aggregates.count-agrees',
    level: 'MUST',
    clause: '4.2 (count); 4.3',
    catches: 1,
    title: 'MUST count exactly what the filter selects, for the same filter',
    exchangesPerCase: 20,
    isolation: 'reads',
    appliesTo: isCoreQueryOf('count'),
    run: countAgrees,
  }),
  defineCheck({
    id: 'aggregates.paginate-agrees',
    level: 'MUST',
    clause: '4.3 rule 5; OpenAPI document (/paginate)',
    catches: 1,
    title:
      'MUST page the filter result whole: count is its size, pages is ceil(count/limit), the pages together give it',
    exchangesPerCase: 3,
    isolation: 'reads',
    appliesTo: isCoreQueryOf('paginate'),
    run: paginateAgrees,
  }),
  defineCheck({
    id: 'aggregates.history',
    isolation: 'reads',
    level: 'MUST',
    clause: '4.2 (history); OpenAPI document',
    catches: 1,
    title:
      'MUST bin the history by start, end and interval, and count in each bin and state type the runs whose expected start falls in it',
    appliesTo: isHistory,
    run: async (op, ctx): Promise<Verdict> => {
      const q = await queryContext(ctx);
      const key = op.path.split('/')[1];
      const runs = q.built.corpus[key] ?? [];
      if (!runs.length) throw new Skip(`no corpus of ${key}`);
      const times = runs.map((r) => Date.parse(String(r.expected_start_time)));
      const intervalSeconds = 600;
      const start = Math.floor(Math.min(...times) / 1000) * 1000 - 1_800_000;
      const end = Math.ceil(Math.max(...times) / 1000) * 1000 + 1_800_000;
      const ex = await historyOf(ctx, op, key, q.ids(key), start, end, intervalSeconds);
      if (!is2xx(ex) || !Array.isArray(ex.json))
        return fail('status.unexpected', statusKey(ex), `history answered ${ex.status}`, [ex]);
      const bins = ex.json as Obj[];
      const expectedBins = Math.min(
        Math.ceil((end - start) / (intervalSeconds * 1000)),
        ctx.profile.historyMaxBins ?? Infinity,
      );
      if (bins.length !== expectedBins)
        return fail(
          'aggregate.mismatch',
          'bins',
          `${bins.length} bins; ceil((end - start) / interval) is ${expectedBins}`,
          [ex],
          { bins: bins.length, expected: expectedBins },
        );
      for (let i = 0; i < bins.length; i++) {
        const from = start + i * intervalSeconds * 1000;
        const to = from + intervalSeconds * 1000;
        if (Date.parse(String(bins[i].interval_start)) !== from || Date.parse(String(bins[i].interval_end)) !== to)
          return fail(
            'aggregate.mismatch',
            'bin bounds',
            `bin ${i} is [${bins[i].interval_start}, ${bins[i].interval_end}); expected [${new Date(from).toISOString()}, ${new Date(to).toISOString()})`,
            [ex],
          );
        const expected = new Map<string, number>();
        for (const r of runs) {
          const t = micros(r.expected_start_time);
          if (t >= BigInt(from) * 1000n && t < BigInt(to) * 1000n) {
            const type = String((r.state as Obj | undefined)?.type ?? r.state_type);
            expected.set(type, (expected.get(type) ?? 0) + 1);
          }
        }
        const got = new Map<string, number>();
        for (const st of (bins[i].states as Obj[]) ?? [])
          got.set(String(st.state_type), (got.get(String(st.state_type)) ?? 0) + Number(st.count_runs));
        const show = (m: Map<string, number>) => JSON.stringify(Object.fromEntries([...m].sort()));
        if (show(got) !== show(expected))
          return fail(
            'aggregate.mismatch',
            'bin counts',
            `bin ${i} [${bins[i].interval_start}) counts ${show(got)}; the run's objects give ${show(expected)}`,
            [ex],
          );
      }
      return pass(`${bins.length} bins agree with ${runs.length} ${key}`);
    },
  }),
  defineCheck({
    id: 'aggregates.history-invalid-interval',
    level: 'MUST',
    clause: '4.2 (history); 7',
    catches: 1,
    title: 'MUST refuse a history interval below one second with a 4xx',
    isolation: 'reads',
    appliesTo: isHistory,
    run: historyInvalidInterval,
  }),
];
