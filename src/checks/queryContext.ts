/**
 * What the query families (filters, sorting, pagination, aggregates) share: the run's corpus, the filter
 * model of each core collection, the profile's semantics, and a scoped query through the run's client.
 */
import type { Exchange } from '../http/client.js';
import { documentedAsIgnored } from '../cases/filters.js';
import { filterModel, type FilterModel } from '../model/filters.js';
import type { Session } from '../run/session.js';
import { buildCorpus, type BuiltCorpus } from '../resources/corpus.js';
import type { Operation } from '../spec/operations.js';
import type { FilterSemantics, Obj } from '../model/oracle.js';
import { Skip } from './probe.js';

/** The spec's five core collections (§2). */
export const CORE = ['flows', 'flow_runs', 'task_runs', 'deployments', 'artifacts'];

export interface QueryContext {
  built: BuiltCorpus;
  models: Map<string, FilterModel>;
  semantics: FilterSemantics;
  /** The ids of the run's objects of a collection. */
  ids(key: string): string[];
  /** A filter body on the run's own objects of a collection (`{key: {id: {any_: ids}}}`), to spread into a query. */
  scope(key: string): Obj;
  /** POST the body to the operation; answer, and the ids of the run's objects in it. */
  query(op: Operation, body: Obj): Promise<{ exchange: Exchange; ids: string[] }>;
}

const contexts = new WeakMap<Session, Promise<QueryContext>>();

export function queryContext(session: Session): Promise<QueryContext> {
  let p = contexts.get(session);
  if (!p) {
    p = (async () => {
      if (session.config.readOnly) throw new Error('read-only mode: the query checks need a corpus of their own');
      const profileSemantics = session.cases.profile.filterSemantics;
      if (!profileSemantics) throw new Error(`the ${session.cases.profile.name} profile gives no filter semantics`);
      const models = new Map<string, FilterModel>();
      const ignored = new Set<string>();
      for (const key of CORE) {
        const m = coreFilterModel(session, key);
        if (m?.ownKey) models.set(key, m);
        for (const [k, f] of Object.entries(m?.filters ?? {})) for (const field of f.fields) if (documentedAsIgnored(field)) ignored.add(`${k}.${field.path.join('.')}`);
      }
      const semantics: FilterSemantics = { ...profileSemantics, ignored };
      const built = await buildCorpus(session);
      const own = new Map(Object.entries(built.corpus).map(([k, objs]) => [k, new Set(objs.map((o) => String(o.id)))]));
      return {
        built,
        models,
        semantics,
        ids: (key) => [...(own.get(key) ?? [])],
        scope: (key) => ({ [key]: { id: { any_: [...(own.get(key) ?? [])] } } }),
        async query(op, body) {
          const exchange = await session.client.send({ method: 'POST', template: op.path, path: op.path, json: body });
          const key = session.model.collectionOf(op)?.name ?? '';
          const mine = own.get(key) ?? new Set<string>();
          const ids = Array.isArray(exchange.json) ? (exchange.json as Obj[]).map((o) => String(o.id)).filter((id) => mine.has(id)) : [];
          return { exchange, ids };
        },
      };
    })();
    contexts.set(session, p);
  }
  return p;
}

/** The key (`flows`, …) of the core collection an operation belongs to, if it belongs to one. */
export function coreModelOf(session: Session, op: Operation): string | undefined {
  const c = session.model.collectionOf(op);
  return c && CORE.includes(c.name) && c.parentParams.length === 0 ? c.name : undefined;
}

/** The operation is a core collection's filter, count or paginate. */
export function isCoreQuery(session: Session, op: Operation, kind: 'filter' | 'count' | 'paginate'): boolean {
  const key = coreModelOf(session, op);
  return key !== undefined && session.model.collections.get(`/${key}`)?.[kind] === op;
}

const filterModels = new WeakMap<Session, Map<string, FilterModel | undefined>>();

/** The filter model of a core collection, read off the document once per run (checks register on it too). */
export function coreFilterModel(session: Session, key: string): FilterModel | undefined {
  let byKey = filterModels.get(session);
  if (!byKey) filterModels.set(session, (byKey = new Map()));
  if (!byKey.has(key)) {
    const c = session.model.collections.get(`/${key}`);
    byKey.set(key, c && filterModel(session.model, c));
  }
  return byKey.get(key);
}

/** The query context, or a skip with the reason it cannot be had (read-only mode, no semantics). */
export async function queryContextOrSkip(session: Session): Promise<QueryContext> {
  try {
    return await queryContext(session);
  } catch (e) {
    throw new Skip((e as Error).message);
  }
}
