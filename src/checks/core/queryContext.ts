/**
 * What the query families (filters, sorting, pagination, aggregates) share: the run's corpus, the filter
 * model of each core collection, the profile's semantics, and queries scoped to the run's own objects.
 */
import { documentedAsIgnored } from '../../cases/filters.js';
import { filterModel, largestPage, type FilterModel } from '../../model/filters.js';
import type { ApiModel } from '../../model/model.js';
import type { FilterSemantics } from '../../model/oracle.js';
import type { Obj } from '../../openapi/json.js';
import type { Operation } from '../../openapi/operations.js';
import type { BuiltCorpus } from './context.js';
import type { CheckContext, Exchange } from './context.js';
import { once } from './once.js';
import { Skip } from './verdict.js';

/** The spec's five core collections (§2). */
export const CORE = ['flows', 'flow_runs', 'task_runs', 'deployments', 'artifacts'];

export interface QueryContext {
  built: BuiltCorpus;
  models: Map<string, FilterModel>;
  semantics: FilterSemantics;
  /** The ids of the run's objects of a collection. */
  ids(key: string): string[];
  /** The largest page asked for of a collection's filter: 200, or the document's maximum of `limit` below it. */
  pageSize(key: string): number;
  /** A filter body on the run's own objects of a collection (`{key: {id: {any_: ids}}}`), to spread into a query. */
  scope(key: string): Obj;
  /** POST the body to the operation; answer, and the ids of the run's objects in it. */
  query(op: Operation, body: Obj): Promise<{ exchange: Exchange; ids: string[] }>;
}

/** The query context of the run, made once; a Skip with the reason it cannot be had (read-only mode, no semantics). */
export async function queryContext(ctx: CheckContext): Promise<QueryContext> {
  if (ctx.settings.readOnly) throw new Skip('read-only mode: the query checks need a corpus of their own');
  const profileSemantics = ctx.profile.filterSemantics;
  if (!profileSemantics) throw new Skip(`the ${ctx.profile.name} profile gives no filter semantics`);
  // Each check waits for the corpus itself: its building is a job of its own, and a check waiting for it
  // through ctx.corpus() holds no place in the scheduler meanwhile (one waiting for this context would).
  const built = await ctx.corpus();
  return once(ctx, 'query context', async () => {
    const models = new Map<string, FilterModel>();
    const ignored = new Set<string>();
    for (const key of CORE) {
      const m = coreFilterModel(ctx.model, key);
      if (m?.ownKey) models.set(key, m);
      for (const [k, f] of Object.entries(m?.filters ?? {}))
        for (const field of f.fields) if (documentedAsIgnored(field)) ignored.add(`${k}.${field.path.join('.')}`);
    }
    const semantics: FilterSemantics = { ...profileSemantics, ignored };
    const own = new Map(Object.entries(built.corpus).map(([k, objs]) => [k, new Set(objs.map((o) => String(o.id)))]));
    return {
      built,
      models,
      semantics,
      ids: (key) => [...(own.get(key) ?? [])],
      pageSize: (key) => largestPage(models.get(key)),
      scope: (key) => ({ [key]: { id: { any_: [...(own.get(key) ?? [])] } } }),
      async query(op, body) {
        const exchange = await ctx.send({ method: 'POST', template: op.path, path: op.path, json: body });
        const mine = own.get(ctx.model.collectionOf(op)?.name ?? '') ?? new Set<string>();
        const ids = Array.isArray(exchange.json)
          ? (exchange.json as Obj[]).map((o) => String(o.id)).filter((id) => mine.has(id))
          : [];
        return { exchange, ids };
      },
    };
  });
}

/** The key (`flows`, …) of the core collection an operation belongs to, if it belongs to one. */
export function coreModelOf(model: ApiModel, op: Operation): string | undefined {
  const c = model.collectionOf(op);
  return c && CORE.includes(c.name) && c.parentParams.length === 0 ? c.name : undefined;
}

/** The operation is a core collection's filter, count or paginate. */
export function isCoreQuery(model: ApiModel, op: Operation, kind: 'filter' | 'count' | 'paginate'): boolean {
  const key = coreModelOf(model, op);
  return key !== undefined && model.collections.get(`/${key}`)?.[kind] === op;
}

/** The filter operation of a core collection (spec §2), whose filter model the query families know. */
export const isCoreFilter = (op: Operation, ctx: CheckContext) => isCoreQuery(ctx.model, op, 'filter');

const filterModels = new WeakMap<ApiModel, Map<string, FilterModel | undefined>>();

/** The filter model of a core collection, read off the document once per model. */
export function coreFilterModel(model: ApiModel, key: string): FilterModel | undefined {
  let byKey = filterModels.get(model);
  if (!byKey) filterModels.set(model, (byKey = new Map()));
  if (!byKey.has(key)) {
    const c = model.collections.get(`/${key}`);
    byKey.set(key, c && filterModel(model, c));
  }
  return byKey.get(key);
}

/** The sort values the document offers for a core collection's filter. */
export function sortEnum(model: ApiModel, op: Operation): string[] | undefined {
  const key = coreModelOf(model, op);
  return key ? coreFilterModel(model, key)?.sort?.values : undefined;
}

/** The query context and the core collection of the operation, with at least `minimum` of its objects in the corpus. */
export async function corpusOf(
  ctx: CheckContext,
  op: Operation,
  minimum = 1,
): Promise<{ q: QueryContext; key: string }> {
  const q = await queryContext(ctx);
  const key = coreModelOf(ctx.model, op)!;
  requireCorpus(q, key, minimum);
  return { q, key };
}

/**
 * A Skip unless the corpus holds at least `minimum` objects of the collection; when the target refused their
 * creates (a 503 on a busy server), the reason gives the create's answer.
 */
export function requireCorpus(q: QueryContext, key: string, minimum = 1): void {
  if (q.ids(key).length >= minimum) return;
  const short = minimum === 1 ? `no corpus of ${key}` : `fewer than ${minimum} objects of ${key} in the corpus`;
  throw new Skip(q.built.missing[key] ? `${short}: ${q.built.missing[key]}` : short);
}
