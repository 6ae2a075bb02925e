/**
 * Work that several checks judge (one DELETE scenario for three DELETE checks, one legal path of states for
 * four orchestration checks) is done once per run: per context and key.
 */
import type { CheckContext } from './context.js';

const done = new WeakMap<CheckContext, Map<string, Promise<unknown>>>();

export function once<T>(ctx: CheckContext, key: string, make: () => Promise<T>): Promise<T> {
  let byKey = done.get(ctx);
  if (!byKey) done.set(ctx, (byKey = new Map()));
  let p = byKey.get(key) as Promise<T> | undefined;
  if (!p) byKey.set(key, (p = make()));
  return p;
}
