/**
 * Family `sorting` (spec §4.3 rule 6): every value of every sort enum orders the run's objects by its
 * key. Ties may come in any order; where nulls go and how strings collate are the target's choice:
 * detected and reported, never failed.
 */
import { madeOnce } from '../../config/madeOnce.js';
import type { Obj } from '../../openapi/json.js';
import type { Operation } from '../../openapi/operations.js';
import { is2xx } from '../../openapi/request.js';
import { defineCheck } from '../core/check.js';
import type { CheckContext } from '../core/context.js';
import { coreFilterModel, coreModelOf, corpusOf, isCoreFilter, sortEnum } from '../core/queryContext.js';
import { fail, isLoadAnswer, pass, statusKey, unexpected, type Verdict } from '../core/verdict.js';

const binary = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
// Made on first use: a collator pages in ICU's data (part of node's binary, resident for the
// process's life), which a process that only loads the registry (the CLI's preflight
// thread) has no use for.
const collator = madeOnce(() => ({
  folded: new Intl.Collator('en', { sensitivity: 'base' }).compare,
  natural: new Intl.Collator('en').compare,
}));

function comparators(sample: unknown): Array<[string, (a: unknown, b: unknown) => number]> {
  if (typeof sample === 'number') return [['numeric', (a, b) => Number(a) - Number(b)]];
  if (typeof sample === 'string' && !Number.isNaN(Date.parse(sample)) && /\d{4}-\d{2}-\d{2}T/.test(sample))
    return [['time', (a, b) => Date.parse(String(a)) - Date.parse(String(b))]];
  return [
    ['binary', (a, b) => binary(String(a), String(b))],
    ['case-insensitive', (a, b) => collator().folded(String(a), String(b))],
    ['locale', (a, b) => collator().natural(String(a), String(b))],
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
  const passing = comparators(values[0])
    .filter(([, cmp]) => ordered(values, cmp, descending))
    .map(([name]) => name);
  return passing.length
    ? { ok: true, how: `${passing[0]} order, ${nullPlacement}` }
    : {
        ok: false,
        how: `not ordered under ${comparators(values[0])
          .map(([n]) => n)
          .join(', ')}`,
      };
}

function keyOf(ctx: CheckContext, key: string, value: string): (o: Obj) => unknown {
  const custom = ctx.profile.sortKey?.(key, value);
  if (custom) return custom;
  const field = value.replace(/_(ASC|DESC)$/, '').toLowerCase();
  return (o) => o[field];
}

/** Query the run's objects sorted by `value` (or by the default, when `sent` is undefined) and judge their order. */
async function judgeSorted(
  op: Operation,
  ctx: CheckContext,
  value: string,
  sent: string | undefined,
  describe: (ok: boolean, how: string) => string,
): Promise<Verdict> {
  const { q, key } = await corpusOf(ctx, op, 2);
  const { exchange } = await q.query(op, { ...q.scope(key), ...(sent ? { sort: sent } : {}), limit: q.pageSize(key) });
  if (isLoadAnswer(exchange)) return unexpected(sent ? `sort ${sent}` : 'the query', exchange);
  if (!is2xx(exchange) || !Array.isArray(exchange.json))
    return fail(
      'status.unexpected',
      statusKey(exchange),
      `${sent ? `sort ${sent}` : 'the query'} answered ${exchange.status}`,
      [exchange],
    );
  const keys = (exchange.json as Obj[]).map(keyOf(ctx, key, value));
  const verdict = judgeOrder(keys, value.endsWith('_DESC'));
  return verdict.ok
    ? pass(describe(true, verdict.how))
    : fail(
        'order.violated',
        value,
        `${describe(false, verdict.how)}: ${JSON.stringify(keys.slice(0, 8))}`,
        [exchange],
        { sort: value, keys: keys.slice(0, 20) },
      );
}

/** `sorting.default`: with no sort, the answer is in the order the document gives as its default. */
function sortingDefault(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const value = coreFilterModel(ctx.model, coreModelOf(ctx.model, op)!)!.sort!.default!;
  const describe = (ok: boolean, how: string) =>
    ok ? `no sort: ordered as ${value} (${how})` : `no sort: not in the documented default order ${value}: ${how}`;
  return judgeSorted(op, ctx, value, undefined, describe);
}

export const sortingChecks = [
  defineCheck({
    id: 'sorting.by-value',
    isolation: 'reads',
    level: 'MUST',
    clause: '4.3 rule 6',
    title:
      'MUST order the result by the key of each sort value (ties in any order; null placement and collation are reported)',
    appliesTo: (op, ctx) => isCoreFilter(op, ctx) && (sortEnum(ctx.model, op)?.length ?? 0) > 0,
    variants: (op, ctx) => [...(sortEnum(ctx.model, op) ?? [])].sort(),
    run: (op, ctx, value) => judgeSorted(op, ctx, value!, value, (_ok, how) => `${value}: ${how}`),
  }),
  defineCheck({
    id: 'sorting.default',
    level: 'MUST',
    clause: '4.3 rule 6; OpenAPI document (sort default)',
    title: 'MUST order by the documented default sort when the request names none',
    isolation: 'reads',
    appliesTo: (op, ctx) =>
      isCoreFilter(op, ctx) && coreFilterModel(ctx.model, coreModelOf(ctx.model, op)!)?.sort?.default !== undefined,
    run: sortingDefault,
  }),
];
