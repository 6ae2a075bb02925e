/**
 * Family `filters` (spec §4.3): the server's answer to generated filters equals the oracle's, as sets of
 * the run's own objects; the seed's own example; the edge operands. Failures shrink to a minimal filter.
 */
import fc from 'fast-check';
import { bodyOf, filterBodyArbitrary, filterCases, tripleOf } from '../cases/filters.js';
import type { Session } from '../run/session.js';
import type { Operation } from '../spec/operations.js';
import { evaluate, Unsupported, type Obj } from '../model/oracle.js';
import { is2xx, probing } from './probe.js';
import { coreModelOf, isCoreQuery, queryContextOrSkip, type QueryContext } from './queryContext.js';
import { fail, pass, skip, type Check, type Verdict } from './types.js';

/** Triples each generated filter used: the coverage table of results.json. */
export const coverage = new Map<string, { checked: number; skipped?: string }>();

const isFilterOp = (op: Operation, session: Session) => isCoreQuery(session, op, 'filter');

/** Scope a body to the run's own objects: `id.any_` ANDed in, unless the filter ORs its fields. */
export function scoped(body: Obj, own: string, ids: string[], or: boolean): Obj {
  if (or) return { ...body, limit: 200 };
  const ownFilter = { ...((body[own] as Obj) ?? {}) };
  ownFilter.id = { ...((ownFilter.id as Obj) ?? {}), any_: (ownFilter.id as Obj | undefined)?.any_ ?? ids };
  return { ...body, [own]: ownFilter, limit: 200 };
}

export const filtersChecks: Array<Check<Session>> = [
  {
    id: 'filters.oracle',
    family: 'filters',
    level: 'MUST',
    clause: '4.3',
    title: 'MUST select exactly the objects the filter describes (compared with an oracle over the run\'s own objects)',
    appliesTo: isFilterOp,
    run: (op, session) =>
      probing(async (): Promise<Verdict> => {
        const q = await queryContextOrSkip(session);
        const key = coreModelOf(session, op)!;
        const model = q.models.get(key);
        if (!model || !q.built.corpus[key]?.length) return skip(`no corpus of ${key}: ${q.built.missing[key] ?? 'no filter model'}`);
        const cases = filterCases(session.model.doc, model, q.semantics, q.built.corpus, q.built.bound);
        for (const [triple, reason] of cases.unknown) if (!coverage.has(triple)) coverage.set(triple, { checked: 0, skipped: reason });
        let last: { body: Obj; server: string[]; oracle: string[]; exchange: Awaited<ReturnType<QueryContext['query']>>['exchange'] } | undefined;
        const examples = cases.examples.map((c) => [{ body: bodyOf([c]), criteria: [c], or: false }] as [{ body: Obj; criteria: typeof c[]; or: boolean }]);
        let budget = examples.length + session.config.runs * 3 + 40;
        const seed = session.config.seed;
        const result = await fc.check(
          fc.asyncProperty(filterBodyArbitrary(model, cases), async ({ body, criteria, or }) => {
            if (budget-- <= 0) return true;
            let expected: Set<string>;
            try {
              expected = evaluate(model, q.semantics, q.built.corpus, body);
            } catch (e) {
              if (e instanceof Unsupported) return true;
              throw e;
            }
            for (const c of criteria) coverage.set(tripleOf(c), { checked: (coverage.get(tripleOf(c))?.checked ?? 0) + 1 });
            const sent = scoped(body, key, q.ids(key), or);
            const { exchange, ids } = await q.query(op, sent);
            if (!is2xx(exchange)) {
              last = { body: sent, server: [], oracle: [...expected], exchange };
              return false;
            }
            const same = ids.length === expected.size && ids.every((id) => expected.has(id));
            if (!same) last = { body: sent, server: ids, oracle: [...expected], exchange };
            return same;
          }),
          { seed, numRuns: examples.length + session.config.runs * 3, examples, endOnFailure: false },
        );
        if (!result.failed) return pass(`${examples.length} edge and ${result.numRuns - examples.length} generated filters agreed with the oracle`);
        const l = last!;
        const extra = l.server.filter((id) => !l.oracle.includes(id));
        const missing = l.oracle.filter((id) => !l.server.includes(id));
        return fail(
          `${JSON.stringify(l.body)} → server ${l.exchange.status}: ${extra.length} more than the oracle (${extra.slice(0, 3).join(', ')}), ${missing.length} fewer (${missing.slice(0, 3).join(', ')})`,
          [l.exchange],
          { seed, path: result.counterexamplePath ?? undefined },
        );
      }),
  },
  {
    id: 'filters.seed-example',
    family: 'filters',
    level: 'MUST',
    clause: '4.3 rule 4',
    title: 'MUST find the flows tagged with the given tags that have FAILED runs',
    appliesTo: (op, session) => isFilterOp(op, session) && coreModelOf(session, op) === 'flows',
    run: (op, session) =>
      probing(async () => {
        const q = await queryContextOrSkip(session);
        const model = q.models.get('flows')!;
        const tag = q.built.tags[0];
        const body = { flows: { tags: { all_: [tag] } }, flow_runs: { state: { type: { any_: ['FAILED'] } } } };
        const expected = evaluate(model, q.semantics, q.built.corpus, body);
        if (expected.size === 0) return skip('the corpus has no tagged flow with a FAILED run');
        const { exchange, ids } = await q.query(op, scoped(body, 'flows', q.ids('flows'), false));
        return ids.length === expected.size && ids.every((id) => expected.has(id)) ? pass(`${ids.length} flow(s)`) : fail(`server ${JSON.stringify(ids)}, expected ${JSON.stringify([...expected])}`, [exchange]);
      }),
  },
  {
    id: 'filters.any-empty-matches-nothing',
    family: 'filters',
    level: 'MUST',
    clause: '4.3 (any_: the field matches any of the values; of none, nothing)',
    title: 'MUST match nothing with any_ of an empty list',
    appliesTo: isFilterOp,
    run: (op, session) =>
      probing(async () => {
        const q = await queryContextOrSkip(session);
        const key = coreModelOf(session, op)!;
        if (!q.ids(key).length) return skip(`no corpus of ${key}`);
        const field = q.models.get(key)?.filters[key]?.fields.find((f) => f.path.join('.') !== 'id' && 'any_' in f.operators);
        if (!field) return skip(`no field of ${key} takes any_ besides id`);
        const criterion: Obj = {};
        field.path.reduce((node, p, i) => (node[p] = i === field.path.length - 1 ? { any_: [] } : {}) as Obj, criterion);
        const { exchange, ids } = await q.query(op, { [key]: { id: { any_: q.ids(key) }, ...criterion }, limit: 200 });
        if (!is2xx(exchange)) return fail(`answered ${exchange.status}`, [exchange]);
        return ids.length === 0 ? pass(`${field.path.join('.')}.any_: []`) : fail(`${field.path.join('.')}.any_: [] matched ${ids.length} object(s)`, [exchange]);
      }),
  },
];
