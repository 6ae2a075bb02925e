/**
 * An in-memory server of the five core collections for the query families' judgement tests: creates,
 * and /filter, /count, /paginate and /history answered as the oracle and the profile read them. `breaks`
 * names one behaviour to get wrong; `crowd` objects of others come first in the answer to every `or_`
 * filter. The corpus is made by the suite's own corpus builder against it.
 */
import { documentedAsIgnored } from '../../../src/cases/filters.js';
import { CORE, coreFilterModel } from '../../../src/checks/core/queryContext.js';
import { evaluate, withReading, type Corpus } from '../../../src/model/oracle.js';
import type { Obj } from '../../../src/openapi/json.js';
import { emptyPatternsApplied, micros } from '../../../src/model/profiles/operators.js';
import { prefectProfile } from '../../../src/model/profiles/prefect.js';
import type { RequestToSend } from '../../../src/openapi/request.js';
import { buildCorpus, type BuiltCorpus } from '../../../src/resources/corpus.js';
import { exchange, referenceModel, type Reply } from './fake.js';

/** The profile's semantics, and the fields the document says the server ignores (as the query checks read them). */
async function semanticsOf() {
  const model = await referenceModel();
  const ignored = new Set<string>();
  for (const key of CORE)
    for (const [k, f] of Object.entries(coreFilterModel(model, key)?.filters ?? {}))
      for (const field of f.fields) if (documentedAsIgnored(field)) ignored.add(`${k}.${field.path.join('.')}`);
  return { ...prefectProfile.filterSemantics!, ignored };
}

function sortedBy(key: string, value: string | undefined, objs: Obj[]): Obj[] {
  if (!value) return objs;
  const field = value.replace(/_(ASC|DESC)$/, '').toLowerCase();
  const keyOf = prefectProfile.sortKey?.(key, value) ?? ((o: Obj) => o[field]);
  const cmp = (a: Obj, b: Obj) => {
    const [x, y] = [keyOf(a), keyOf(b)];
    if (x === y) return 0;
    if (x === null || x === undefined) return -1;
    if (y === null || y === undefined) return 1;
    return String(x) < String(y) ? -1 : 1;
  };
  const asc = [...objs].sort(cmp);
  return value.endsWith('_DESC') ? asc.reverse() : asc;
}

export async function queryServer(
  breaks?: string,
  crowd = 0,
): Promise<{ server: (r: RequestToSend) => Reply | undefined; corpus: BuiltCorpus }> {
  const model = await referenceModel();
  const semantics = await semanticsOf();
  const emptyPatternsSemantics = { ...semantics, operators: { ...semantics.operators, ...emptyPatternsApplied } };
  // The reading of releases before 3.1: start_time before_/after_ on start_time alone.
  const startTimeAloneSemantics = withReading(semantics, semantics.otherReadings![0]);
  const store: Corpus = Object.fromEntries(CORE.map((k) => [k, []]));
  let n = 0;
  const base = Date.parse('2026-11-22T10:00:00.000Z');
  const selected = (key: string, body: Obj): Obj[] => {
    const fm = coreFilterModel(model, key)!;
    try {
      const ids =
        breaks === 'ignore-filter'
          ? new Set(store[key].map((o) => String(o.id)))
          : evaluate(
              fm,
              breaks === 'apply-empty-pattern'
                ? emptyPatternsSemantics
                : breaks === 'start-time-alone'
                  ? startTimeAloneSemantics
                  : semantics,
              store,
              body,
            );
      return store[key].filter((o) => ids.has(String(o.id)));
    } catch {
      return [];
    }
  };
  const server = (r: RequestToSend): Reply | undefined => {
    const [, key, action] = /^\/(\w+)\/(\w*)$/.exec(r.path) ?? [];
    if (!key || !CORE.includes(key) || r.method !== 'POST') return undefined;
    const body = (r.json ?? {}) as Obj;
    if (action === '') {
      const created = new Date(base + ++n * 1000).toISOString();
      const state = body.state as Obj | undefined;
      const scheduled = (state?.state_details as Obj | undefined)?.scheduled_time as string | undefined;
      const obj: Obj = { ...body, id: `${key}-${String(n).padStart(3, '0')}`, created, updated: created };
      if (state)
        Object.assign(obj, {
          state: { type: state.type },
          state_type: state.type,
          expected_start_time: scheduled ?? created,
          start_time: null,
        });
      store[key].push(obj);
      return { status: 201, json: obj };
    }
    const documentedDefault = breaks === 'ignore-default-sort' ? undefined : coreFilterModel(model, key)?.sort?.default;
    const all = sortedBy(key, (body.sort as string | undefined) ?? documentedDefault, selected(key, body));
    const sorted = breaks === 'reverse-sort' && body.sort ? all.reverse() : all;
    // A server crowded with objects of others that an `or_` filter selects too, sorted ahead of the run's.
    const ors = (body[key] as Obj | undefined)?.operator === 'or_';
    const ordered = ors
      ? [...Array.from({ length: crowd }, (_, i): Obj => ({ id: `${key}-other-${i}` })), ...sorted]
      : sorted;
    if (action === 'filter') {
      if (breaks === 'refuse-later-pages' && body.offset) return { status: 500, json: { detail: 'later page' } };
      const offset =
        breaks === 'ignore-offset'
          ? 0
          : Number(body.offset ?? 0) + (breaks === 'offset-off-by-one' && body.offset ? 1 : 0);
      const limit = body.limit === undefined || breaks === 'ignore-limit' ? 200 : Number(body.limit);
      if (limit < 0 || offset < 0 || limit > 200)
        return breaks === 'accept-bad-limit'
          ? { status: 200, json: [] }
          : { status: 422, json: { detail: 'bad limit' } };
      return { status: 200, json: ordered.slice(offset, offset + limit) };
    }
    if (action === 'count') return { status: 200, json: ordered.length + (breaks === 'count-off' ? 1 : 0) };
    if (action === 'paginate') {
      const limit = Number(body.limit ?? 200);
      const page = Number(body.page ?? 1);
      const pages = Math.ceil(ordered.length / limit) + (breaks === 'pages-off' ? 1 : 0);
      return {
        status: 200,
        json: { results: ordered.slice((page - 1) * limit, page * limit), count: ordered.length, pages, page, limit },
      };
    }
    if (action === 'history') {
      const interval = Number(body.history_interval_seconds);
      if (interval < 1 && breaks !== 'tiny-interval') return { status: 422, json: { detail: 'interval' } };
      const [start, end] = [Date.parse(String(body.history_start)), Date.parse(String(body.history_end))];
      const bins = [];
      for (let from = start; from < end && bins.length < 500; from += interval * 1000) {
        const to = from + interval * 1000;
        const shift = breaks === 'history-shift' ? interval * 1000 : 0;
        const counts = new Map<string, number>();
        for (const run of ordered) {
          const t = micros(run.expected_start_time);
          if (t >= BigInt(from + shift) * 1000n && t < BigInt(to + shift) * 1000n)
            counts.set(String(run.state_type), (counts.get(String(run.state_type)) ?? 0) + 1);
        }
        const states = [...counts].map(([state_type, count_runs]) => ({ state_type, count_runs }));
        bins.push({ interval_start: new Date(from).toISOString(), interval_end: new Date(to).toISOString(), states });
      }
      return { status: 200, json: bins };
    }
    return undefined;
  };
  const corpus = await buildCorpus({
    model,
    runTag: 'conformance-test-run',
    send: async (request) => exchange(request, server(request) ?? { status: 404, json: {} }),
  });
  return { server, corpus };
}
