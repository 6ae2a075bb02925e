/**
 * Family `aggregates`: `/count` agrees with `/filter` for the same filter, and `/paginate` agrees with both.
 */
import fc from 'fast-check';
import { filterBodyArbitrary, filterCases } from '../cases/filters.js';
import type { Session } from '../run/session.js';
import type { Operation } from '../spec/operations.js';
import { scoped } from './filters.js';
import type { Obj } from './oracle.js';
import { is2xx, probing, send, Skip } from './probe.js';
import { coreModelOf, queryContext } from './queryContext.js';
import { fail, pass, type Check } from './types.js';

const isOpOf = (kind: 'count' | 'paginate') => (op: Operation, session: Session) => {
  const key = coreModelOf(session, op);
  return key !== undefined && session.model.collections.get(`/${key}`)?.[kind] === op;
};

export const aggregatesChecks: Array<Check<Session>> = [
  {
    id: 'aggregates.count-agrees',
    family: 'aggregates',
    level: 'MUST',
    clause: '4.2 (count); 4.3',
    title: 'MUST count exactly what the filter selects, for the same filter',
    appliesTo: isOpOf('count'),
    run: (op, session) =>
      probing(async () => {
        const q = await queryContext(session).catch((e: Error) => {
          throw new Skip(e.message);
        });
        const key = coreModelOf(session, op)!;
        const model = q.models.get(key);
        if (!model || !q.built.corpus[key]?.length) throw new Skip(`no corpus of ${key}`);
        const cases = filterCases(session.model.doc, model, q.semantics, q.built.corpus, q.built.bound);
        let shown: ReturnType<typeof fail> | undefined;
        const result = await fc.check(
          fc.asyncProperty(filterBodyArbitrary(model, cases), async ({ body }) => {
            // ANDed with the run's ids: a count over a shared workspace then counts only the run's objects.
            const sent = scoped(body, key, q.ids(key), false);
            const filtered = await q.query(model.op, sent);
            const { limit: _limit, ...countBody } = sent;
            const counted = await send(session, undefined, { method: 'POST', template: op.path, path: op.path, json: countBody, idempotent: true });
            if (!is2xx(counted) || !is2xx(filtered.exchange)) return true; // contract checks report those
            const size = (filtered.exchange.json as Obj[]).length;
            if (counted.json === size) return true;
            shown = fail(`count ${JSON.stringify(counted.json)}, filter ${size} for ${JSON.stringify(countBody)}`, [counted, filtered.exchange]);
            return false;
          }),
          { seed: session.config.seed, numRuns: session.config.runs, endOnFailure: true },
        );
        return result.failed ? { ...shown!, seed: session.config.seed, path: result.counterexamplePath ?? undefined } : pass(`${result.numRuns} filters`);
      }),
  },
  {
    id: 'aggregates.paginate-agrees',
    family: 'aggregates',
    level: 'MUST',
    clause: '4.3 rule 5; OpenAPI document (/paginate)',
    title: 'MUST page the filter result whole: count is its size, pages is ceil(count/limit), the pages together give it',
    appliesTo: isOpOf('paginate'),
    run: (op, session) =>
      probing(async () => {
        const q = await queryContext(session).catch((e: Error) => {
          throw new Skip(e.message);
        });
        const key = coreModelOf(session, op)!;
        const ids = q.ids(key);
        if (!ids.length) throw new Skip(`no corpus of ${key}`);
        const limit = Math.max(1, Math.ceil(ids.length / 3));
        const seen: string[] = [];
        let first: Obj | undefined;
        const pages = [];
        for (let page = 1; page <= 10; page++) {
          const ex = await send(session, undefined, { method: 'POST', template: op.path, path: op.path, json: { [key]: { id: { any_: ids } }, limit, page }, idempotent: true });
          pages.push(ex);
          if (!is2xx(ex)) return fail(`page ${page} answered ${ex.status}`, [ex]);
          const body = ex.json as Obj;
          first ??= body;
          seen.push(...((body.results as Obj[]) ?? []).map((o) => String(o.id)));
          if (page >= Number(body.pages ?? 0)) break;
        }
        const expectedPages = Math.ceil(ids.length / limit);
        if (first!.count !== ids.length) return fail(`count is ${first!.count}; the filter selects ${ids.length}`, [pages[0]]);
        if (first!.pages !== expectedPages) return fail(`pages is ${first!.pages}; ceil(${ids.length}/${limit}) is ${expectedPages}`, [pages[0]]);
        const union = new Set(seen);
        return union.size === ids.length && seen.length === ids.length ? pass(`${expectedPages} pages of ${limit}`) : fail(`the pages hold ${seen.length} item(s), ${union.size} distinct, of ${ids.length}`, pages.slice(0, 3));
      }),
  },
];
