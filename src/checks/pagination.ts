/**
 * Family `pagination` (spec §4.3 rule 5, §8): `limit` and `offset` in the body cut consecutive windows
 * of the sorted result; limit 0 gives nothing; the maximum is accepted and one more refused; negative
 * values are refused; an offset past the end gives nothing.
 */
import fc from 'fast-check';
import type { Session } from '../run/session.js';
import type { Operation } from '../spec/operations.js';
import type { Obj } from '../model/oracle.js';
import { is2xx, probing, Skip } from './probe.js';
import { coreModelOf, isCoreQuery, queryContextOrSkip, type QueryContext } from './queryContext.js';
import { sortEnum } from './sorting.js';
import { fail, pass, skip, type Check, type Verdict } from './types.js';

const isFilterOp = (op: Operation, session: Session) => isCoreQuery(session, op, 'filter');

function page(session: Session, op: Operation, run: (q: QueryContext, key: string) => Promise<Verdict>, minimum = 1) {
  return probing(async () => {
    const q = await queryContextOrSkip(session);
    const key = coreModelOf(session, op)!;
    if (q.ids(key).length < minimum) throw new Skip(`fewer than ${minimum} objects of ${key} in the corpus`);
    return run(q, key);
  });
}

/** A sort without ties on the run's objects (id, else name), so that windows are well defined. */
function untiedSort(session: Session, op: Operation): string | undefined {
  const values = sortEnum(session, op) ?? [];
  return values.find((v) => /^ID_/.test(v)) ?? values.find((v) => /^NAME_/.test(v));
}

function check(id: string, title: string, run: (op: Operation, session: Session) => Promise<Verdict>): Check<Session> {
  return { id, family: 'pagination', level: 'MUST', clause: '4.3 rule 5; 8', title, appliesTo: isFilterOp, run };
}

export const paginationChecks: Array<Check<Session>> = [
  check('pagination.windows', 'MUST return consecutive windows of the sorted result for limit and offset, with no gap and no duplicate', (op, session) =>
    page(session, op, async (q, key) => {
      const sort = untiedSort(session, op);
      if (!sort) return skip('no sort value without ties (ID_* or NAME_*) to page by');
      const base = { ...q.scope(key), sort };
      const full = await q.query(op, { ...base, limit: 200 });
      if (!is2xx(full.exchange)) return fail(`the whole result answered ${full.exchange.status}`, [full.exchange]);
      const n = full.ids.length;
      let shown: Verdict | undefined;
      const result = await fc.check(
        fc.asyncProperty(fc.integer({ min: 1, max: n + 1 }), fc.integer({ min: 0, max: n + 1 }), async (limit, offset) => {
          const { exchange, ids } = await q.query(op, { ...base, limit, offset });
          const expected = full.ids.slice(offset, offset + limit);
          if (JSON.stringify(ids) === JSON.stringify(expected)) return true;
          shown = fail(`limit ${limit}, offset ${offset}: ${JSON.stringify(ids)}; the window is ${JSON.stringify(expected)}`, [exchange, full.exchange]);
          return false;
        }),
        { seed: session.config.seed, numRuns: session.config.runs, endOnFailure: true },
      );
      return result.failed ? { ...shown!, seed: session.config.seed, path: result.counterexamplePath ?? undefined } : pass(`${result.numRuns} windows of ${n} objects, sorted ${sort}`);
    }, 2),
  ),
  check('pagination.limit-zero', 'MUST return nothing for limit 0', (op, session) =>
    page(session, op, async (q, key) => {
      const { exchange } = await q.query(op, { ...q.scope(key), limit: 0 });
      if (!is2xx(exchange)) return fail(`limit 0 answered ${exchange.status}`, [exchange]);
      return Array.isArray(exchange.json) && exchange.json.length === 0 ? pass() : fail(`limit 0 returned ${(exchange.json as Obj[]).length} object(s)`, [exchange]);
    }),
  ),
  check('pagination.maximum-limit', 'MUST accept the maximum limit and refuse one more with a 4xx', (op, session) =>
    page(session, op, async (q, key) => {
      const max = q.models.get(key)?.limit?.maximum ?? session.cases.profile.maxLimit;
      if (max === undefined) return skip('neither the document nor the profile gives a maximum limit');
      const ok = await q.query(op, { ...q.scope(key), limit: max });
      const over = await q.query(op, { ...q.scope(key), limit: max + 1 });
      if (!is2xx(ok.exchange)) return fail(`limit ${max} answered ${ok.exchange.status}`, [ok.exchange]);
      return over.exchange.status >= 400 && over.exchange.status < 500 ? pass(`${max} accepted, ${max + 1} → ${over.exchange.status}`) : fail(`limit ${max + 1} answered ${over.exchange.status}`, [over.exchange]);
    }),
  ),
  check('pagination.negative-refused', 'MUST refuse a negative limit or offset with a 4xx', (op, session) =>
    page(session, op, async (q, key) => {
      for (const extra of [{ limit: -1 }, { offset: -1 }]) {
        const { exchange } = await q.query(op, { ...q.scope(key), ...extra });
        if (!(exchange.status >= 400 && exchange.status < 500)) return fail(`${JSON.stringify(extra)} answered ${exchange.status}`, [exchange]);
      }
      return pass();
    }),
  ),
  check('pagination.offset-past-end', 'MUST return nothing for an offset past the end', (op, session) =>
    page(session, op, async (q, key) => {
      const { exchange } = await q.query(op, { ...q.scope(key), offset: q.ids(key).length + 5 });
      if (!is2xx(exchange)) return fail(`answered ${exchange.status}`, [exchange]);
      return Array.isArray(exchange.json) && exchange.json.length === 0 ? pass() : fail(`returned ${(exchange.json as Obj[]).length} object(s) past the end`, [exchange]);
    }),
  ),
];
