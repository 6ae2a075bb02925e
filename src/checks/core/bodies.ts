/** Comparing two JSON answers: what the profile says changes by itself is left out, and the first differences named. */
import type { Obj } from '../../openapi/json.js';
import type { Profile } from '../../model/profiles/profile.js';

/** The fields that change between two reads with no write between: `updated`, and the profile's volatile ones. */
export const volatileOf = (ctx: { profile: Pick<Profile, 'volatileFields'> }): Set<string> =>
  new Set(['updated', ...(ctx.profile.volatileFields ?? [])]);

/** A copy without the fields that change by themselves (durations computed from the clock). */
export function withoutVolatile(value: unknown, volatile: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutVolatile(v, volatile));
  if (value && typeof value === 'object') {
    const out: Obj = {};
    for (const key of Object.keys(value as Obj).sort())
      if (!volatile.has(key)) out[key] = withoutVolatile((value as Obj)[key], volatile);
    return out;
  }
  return value;
}

/**
 * The volatile fields, with those in which two answers to the same request, with no write between them,
 * differ: what the server computes afresh on each read (a run's duration from the clock) whatever the profile
 * knows of it.
 */
export function volatileBetween(a: unknown, b: unknown, known: ReadonlySet<string>): Set<string> {
  const volatile = new Set(known);
  // `differences` names a few paths at a time: again, until none is left or nothing new is learnt.
  for (let round = 0; round < 10; round++) {
    const found = differences(withoutVolatile(a, volatile), withoutVolatile(b, volatile))
      .map((d) => d.path.split('/').pop()!)
      .filter((field) => field && !/^\d+$/.test(field) && !volatile.has(field));
    if (found.length === 0) break;
    for (const field of found) volatile.add(field);
  }
  return volatile;
}

/**
 * A copy whose lists hold their items in one order (by their JSON text), volatile fields left out first: two
 * answers that hold the same items in other orders compare equal.
 */
export function inOneOrder(value: unknown, volatile: ReadonlySet<string>): unknown {
  const each = (v: unknown): unknown => {
    if (Array.isArray(v))
      return v
        .map(each)
        .map((item) => [JSON.stringify(item), item] as const)
        .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
        .map(([, item]) => item);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v as Obj).map(([k, x]) => [k, each(x)]));
    return v;
  };
  return each(withoutVolatile(value, volatile));
}

/** The JSON paths at which two values differ, with both values (the first few). */
export function differences(
  a: unknown,
  b: unknown,
  at = '',
  out: Array<{ path: string; text: string }> = [],
): Array<{ path: string; text: string }> {
  if (out.length >= 5) return out;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a as Obj), ...Object.keys(b as Obj)]);
    for (const k of keys) differences((a as Obj)[k], (b as Obj)[k], `${at}/${k}`, out);
  } else if (JSON.stringify(a) !== JSON.stringify(b))
    out.push({
      path: at || '/',
      text: `${at || '/'}: ${JSON.stringify(a)?.slice(0, 60)} → ${JSON.stringify(b)?.slice(0, 60)}`,
    });
  return out;
}

/** The differences of two answers' bodies, volatile fields left out: their texts joined, and the first path as a key. */
export function bodyDifference(
  a: unknown,
  b: unknown,
  volatile: ReadonlySet<string>,
): { text: string; key: string } | undefined {
  const diff = differences(withoutVolatile(a, volatile), withoutVolatile(b, volatile));
  return diff.length
    ? { text: diff.map((d) => d.text).join('; '), key: diff[0].path.replace(/\/\d+(?=\/|$)/g, '/*') }
    : undefined;
}
