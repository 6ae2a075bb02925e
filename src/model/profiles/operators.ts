/**
 * What a filter operator means, as small functions over (field value, operand). SQL's NULL rule holds
 * throughout: a null field satisfies no comparison, only `is_null_: true` / `exists_: false`.
 * IGNORED says the operand adds no predicate (an empty `all_`, say), as the target documents it.
 */
export const IGNORED = Symbol('ignored');
export type Verdict = boolean | typeof IGNORED;
export type OperatorMeaning = (value: unknown, operand: unknown) => Verdict;

const isNull = (v: unknown) => v === null || v === undefined;
/**
 * An ISO time in microseconds: servers store µs (Prefect does), and Date.parse would drop them, making an
 * exact boundary look equal when it is not.
 */
export function micros(v: unknown): bigint {
  const text = String(v);
  const m = text.match(/^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(.*)$/);
  if (!m) return BigInt(Date.parse(text)) * 1000n;
  const whole = BigInt(Date.parse(`${m[1]}${m[3] || 'Z'}`)) * 1000n;
  return whole + BigInt((m[2] ?? '').padEnd(6, '0').slice(0, 6));
}
const time = micros;
const asList = (v: unknown): unknown[] | undefined => (Array.isArray(v) ? v : undefined);

/** SQL ILIKE: `%` is any run, `_` any one character, case folded; Prefect does not escape them. */
export function ilike(pattern: string): RegExp {
  const body = [...pattern]
    .map((c) => (c === '%' ? '.*' : c === '_' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 'is');
}

/** The seed spec's operators (spec §4.3), with the meaning it gives them. */
export const seedOperators: Record<string, OperatorMeaning> = {
  any_: (v, xs) => {
    const list = asList(xs);
    if (!list) return IGNORED;
    if (Array.isArray(v)) return v.some((t) => list.includes(t));
    return !isNull(v) && list.includes(v);
  },
  all_: (v, xs) => {
    const list = asList(xs);
    if (!list || list.length === 0) return IGNORED;
    return Array.isArray(v) && list.every((x) => v.includes(x));
  },
  eq_: (v, x) => (isNull(x) ? IGNORED : !isNull(v) && v === x),
  is_null_: (v, x) => {
    if (isNull(x)) return IGNORED;
    const empty = isNull(v) || (Array.isArray(v) && v.length === 0);
    return x ? empty : !empty;
  },
  before_: (v, x) => (isNull(x) ? IGNORED : !isNull(v) && time(v) <= time(x)),
  after_: (v, x) => (isNull(x) ? IGNORED : !isNull(v) && time(v) >= time(x)),
  exists_: (v, x) => (isNull(x) ? IGNORED : x ? !isNull(v) : isNull(v)),
};

/** Prefect's documented extensions (facts, part 2). */
export const prefectOperators: Record<string, OperatorMeaning> = {
  ...seedOperators,
  not_any_: (v, xs) => {
    const list = asList(xs);
    if (!list || list.length === 0) return IGNORED;
    return !isNull(v) && !list.includes(v);
  },
  like_: (v, x) => (typeof x !== 'string' || x === '' ? IGNORED : !isNull(v) && ilike(`%${x}%`).test(String(v))),
  startswith_: (v, x) => (typeof x !== 'string' || x === '' ? IGNORED : !isNull(v) && ilike(`${x}%`).test(String(v))),
  ge_: (v, x) => (isNull(x) ? IGNORED : !isNull(v) && Number(v) >= Number(x)),
  le_: (v, x) => (isNull(x) ? IGNORED : !isNull(v) && Number(v) <= Number(x)),
};

/**
 * The other reading of an empty pattern, which neither the spec (§4.3 has no pattern operators) nor the
 * target's document settles: `like_: ""` and `startswith_: ""` applied as the patterns `%` and so matching
 * every value that is not null, where Prefect 3.8.8 drops them (its code tests the operand's truth).
 */
export const emptyPatternsApplied: Record<string, OperatorMeaning> = {
  like_: (v, x) => (x === '' ? !isNull(v) : prefectOperators.like_(v, x)),
  startswith_: (v, x) => (x === '' ? !isNull(v) : prefectOperators.startswith_(v, x)),
};

/** A criterion whose meaning the spec leaves to the implementation (an empty pattern). */
export const isOpenOperand = (operator: string, operand: unknown): boolean =>
  operator in emptyPatternsApplied && operand === '';
