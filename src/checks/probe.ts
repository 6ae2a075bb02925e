/**
 * What checks that send their own requests share: the run's one client (never a client of their own),
 * the run's objects, recipes, and a comparison of bodies that ignores what the profile says changes by
 * itself (durations computed from the clock).
 */
import { buildRecipe, CannotBuild, type BuiltRequest } from '../cases/requests.js';
import { BlockedByReadOnly, type Exchange, type RequestSpec } from '../http/client.js';
import { namedParam, type Collection } from '../model/model.js';
import { FixtureError } from '../resources/pool.js';
import type { Session } from '../run/session.js';
import type { Operation } from '../spec/operations.js';
import { fail, skip, type Verdict } from './types.js';

export type Obj = Record<string, unknown>;

export class Skip extends Error {}

export async function send(session: Session, op: Operation | undefined, spec: RequestSpec): Promise<Exchange> {
  const exchange = await session.client.send(spec);
  if (op) session.pool.noteCreated(op, exchange, {});
  return exchange;
}

export async function recipe(session: Session, op: Operation): Promise<BuiltRequest> {
  try {
    return await buildRecipe(session.cases, op);
  } catch (e) {
    if (e instanceof FixtureError || e instanceof CannotBuild) throw new Skip(`prerequisite missing: ${e.message}`);
    throw e;
  }
}

export async function freshObject(session: Session, collection: Collection): Promise<Obj> {
  try {
    return await session.pool.object(collection.path, 'fresh');
  } catch (e) {
    if (e instanceof FixtureError || e instanceof CannotBuild) throw new Skip(`cannot create a ${collection.name}: ${e.message}`);
    throw e;
  }
}

/** The item path of an object of a collection (parent parameters from the shared parents). */
export async function itemPath(session: Session, collection: Collection, obj: Obj): Promise<string> {
  const params: Obj = { [collection.item!.param]: obj[collection.idField] };
  for (const parent of collection.parentParams) {
    const ref = session.model.referenceFor(collection.create ?? collection.read!, parent, 'path');
    params[parent] = ref ? await session.pool.value(ref, 'shared') : undefined;
  }
  return collection.item!.path.replace(/\{([^}]+)\}/g, (_, n: string) => encodeURIComponent(String(params[n])));
}

export function readSpec(collection: Collection, path: string): RequestSpec {
  return { method: 'GET', template: collection.read!.path, path };
}

/** A copy without the fields the profile says change by themselves. */
export function masked(value: unknown, volatile: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => masked(v, volatile));
  if (value && typeof value === 'object') {
    const out: Obj = {};
    for (const key of Object.keys(value as Obj).sort()) if (!volatile.has(key)) out[key] = masked((value as Obj)[key], volatile);
    return out;
  }
  return value;
}

/** The paths at which two JSON values differ (the first few). */
export function differences(a: unknown, b: unknown, at = '', out: string[] = []): string[] {
  if (out.length >= 5) return out;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a as Obj), ...Object.keys(b as Obj)]);
    for (const k of keys) differences((a as Obj)[k], (b as Obj)[k], `${at}/${k}`, out);
  } else if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${at || '/'}: ${JSON.stringify(a)?.slice(0, 60)} → ${JSON.stringify(b)?.slice(0, 60)}`);
  return out;
}

export const is2xx = (ex: Exchange) => ex.status >= 200 && ex.status < 300;

/** Run a probe; a Skip becomes a skipped verdict, an unanswered request a failure with its evidence. */
export async function probing(fn: () => Promise<Verdict>): Promise<Verdict> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof Skip || e instanceof BlockedByReadOnly || e instanceof FixtureError || e instanceof CannotBuild) return skip(e.message);
    throw e;
  }
}

export function unexpected(what: string, ex: Exchange): Verdict {
  return fail(`${what}: answered ${ex.status || ex.error} ${ex.body.slice(0, 200)}`, [ex]);
}

/** Collection of an operation whose path names one of its objects (item or lookup path). */
export function namedCollection(session: Session, op: Operation): Collection | undefined {
  const named = namedParam(session.model, op);
  return named?.collection.item ? named.collection : undefined;
}
