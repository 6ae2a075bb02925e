/**
 * Family `sorting` (spec §4.3 rule 6): every value of every sort enum orders the run's objects by its
 * key. Ties may come in any order; where nulls go and how strings collate are the target's choice:
 * detected and reported, never failed.
 */
import type { Session } from '../run/session.js';
import type { Operation } from '../spec/operations.js';
import type { Obj } from '../model/oracle.js';
import { is2xx, probing, Skip } from './probe.js';
import { CORE, coreFilterModel, coreModelOf, isCoreQuery, queryContextOrSkip } from './queryContext.js';
import { fail, pass, type Check, type Verdict } from './types.js';

const binary = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const folded = new Intl.Collator('en', { sensitivity: 'base' }).compare;
const natural = new Intl.Collator('en').compare;

function comparators(sample: unknown): Array<[string, (a: unknown, b: unknown) => number]> {
  if (typeof sample === 'number') return [['numeric', (a, b) => Number(a) - Number(b)]];
  if (typeof sample === 'string' && !Number.isNaN(Date.parse(sample)) && /\d{4}-\d{2}-\d{2}T/.test(sample)) return [['time', (a, b) => Date.parse(String(a)) - Date.parse(String(b))]];
  return [
    ['binary', (a, b) => binary(String(a), String(b))],
    ['case-insensitive', (a, b) => folded(String(a), String(b))],
    ['locale', (a, b) => natural(String(a), String(b))],
  ];
}

/** Is the sequence ordered (ties allowed) under the comparator, in the direction given? */
function ordered(values: unknown[], cmp: (a: unknown, b: unknown) => number, descending: boolean): boolean {
  for (let i = 1; i < values.length; i++) {
    const c = cmp(values[i - 1], values[i]);
    if (descending ? c < 0 : c > 0) return false;
  }
  return true;
}

/** Judge one answer: non-null keys ordered under some accepted collation, nulls together at one end. */
export function judgeOrder(keys: unknown[], descending: boolean): { ok: boolean; how: string } {
  const isNull = (v: unknown) => v === null || v === undefined;
  const firstNonNull = keys.findIndex((v) => !isNull(v));
  const lastNonNull = keys.length - 1 - [...keys].reverse().findIndex((v) => !isNull(v));
  const nulls = keys.filter(isNull).length;
  let nullPlacement = 'no nulls';
  if (nulls > 0 && firstNonNull >= 0) {
    const leading = firstNonNull;
    const trailing = keys.length - 1 - lastNonNull;
    if (leading + trailing !== nulls) return { ok: false, how: 'nulls interleaved with values' };
    nullPlacement = leading === nulls ? 'nulls first' : trailing === nulls ? 'nulls last' : 'nulls at both ends';
    if (nullPlacement === 'nulls at both ends') return { ok: false, how: nullPlacement };
  }
  const values = keys.filter((v) => !isNull(v));
  if (values.length < 2) return { ok: true, how: nullPlacement };
  const passing = comparators(values[0]).filter(([, cmp]) => ordered(values, cmp, descending)).map(([name]) => name);
  return passing.length ? { ok: true, how: `${passing[0]} order, ${nullPlacement}` } : { ok: false, how: `not ordered under ${comparators(values[0]).map(([n]) => n).join(', ')}` };
}

function keyOf(session: Session, key: string, value: string): (o: Obj) => unknown {
  const custom = session.cases.profile.sortKey?.(key, value);
  if (custom) return custom;
  const field = value.replace(/_(ASC|DESC)$/, '').toLowerCase();
  return (o) => o[field];
}

/** One check per sort value that any core collection's document offers. */
export function sortingChecks(session: Session): Array<Check<Session>> {
  const values = new Set<string>();
  for (const key of CORE) {
    const filter = session.model.collections.get(`/${key}`)?.filter;
    for (const v of (filter && sortEnum(session, filter)) ?? []) values.add(v);
  }
  return [defaultSortCheck, ...[...values].sort().map((value) => ({
    id: `sorting.${value}`,
    family: 'sorting',
    level: 'MUST' as const,
    clause: '4.3 rule 6',
    title: `MUST order the result by the key of ${value} (ties in any order; null placement and collation are reported)`,
    appliesTo: (op: Operation, s: Session) => isCoreQuery(s, op, 'filter') && (sortEnum(s, op) ?? []).includes(value),
    run: (op: Operation, s: Session) =>
      probing(async (): Promise<Verdict> => {
        const q = await queryContextOrSkip(s);
        const key = coreModelOf(s, op)!;
        if (q.ids(key).length < 2) throw new Skip(`fewer than two objects of ${key} in the corpus`);
        const { exchange } = await q.query(op, { ...q.scope(key), sort: value, limit: 200 });
        if (!is2xx(exchange) || !Array.isArray(exchange.json)) return fail(`sort ${value} answered ${exchange.status}`, [exchange]);
        const keys = (exchange.json as Obj[]).map(keyOf(s, key, value));
        const verdict = judgeOrder(keys, value.endsWith('_DESC'));
        return verdict.ok ? pass(`${value}: ${verdict.how}`) : fail(`${value}: ${verdict.how}: ${JSON.stringify(keys.slice(0, 8))}`, [exchange]);
      }),
  }))];
}

/** When `sort` is absent, the order is the one the document names as the default. */
export const defaultSortCheck: Check<Session> = {
  id: 'sorting.default',
  family: 'sorting',
  level: 'MUST',
  clause: '4.3 rule 6; OpenAPI document (sort default)',
  title: 'MUST order by the documented default sort when the request names none',
  appliesTo: (op, s) => isCoreQuery(s, op, 'filter') && coreFilterModel(s, coreModelOf(s, op)!)?.sort?.default !== undefined,
  run: (op, s) =>
    probing(async () => {
      const q = await queryContextOrSkip(s);
      const key = coreModelOf(s, op)!;
      const value = coreFilterModel(s, key)!.sort!.default!;
      if (q.ids(key).length < 2) throw new Skip(`fewer than two objects of ${key} in the corpus`);
      const { exchange } = await q.query(op, { ...q.scope(key), limit: 200 });
      if (!is2xx(exchange) || !Array.isArray(exchange.json)) return fail(`answered ${exchange.status}`, [exchange]);
      const verdict = judgeOrder((exchange.json as Obj[]).map(keyOf(s, key, value)), value.endsWith('_DESC'));
      return verdict.ok ? pass(`no sort: ordered as ${value} (${verdict.how})`) : fail(`no sort: not in the documented default order ${value}: ${verdict.how}`, [exchange]);
    }),
};

export function sortEnum(session: Session, op: Operation): string[] | undefined {
  const key = coreModelOf(session, op);
  return key ? coreFilterModel(session, key)?.sort?.values : undefined;
}
