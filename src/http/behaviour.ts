/**
 * What an exchange did, with what differs between two runs masked (identifiers, times, the run's own tag),
 * so that two deployments answering the same generated request can be compared: the request's key, the
 * response's status, its shape (JSON types, not values) and, for an array, the order of its items.
 * One line per exchange goes to the run's exchange log; `compare` reads two of them.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Overlap, SETTLED } from './pacing/overlap.js';

export interface Behaviour {
  /** Hash of the masked request: method, path and query, body. */
  k: string;
  /** The masked request, shortened, for people. */
  q: string;
  m: string;
  t: string;
  s: number;
  ms: number;
  /** When the answer came, in ms since the run's client was made (absent in logs of earlier versions). */
  at?: number;
  /** Who sent it: a check's id, `exercise`, or `other`. */
  by?: string;
  /** The response's JSON shape (see Shape). */
  sh?: Shape;
  /** For a JSON array: a short hash of each masked item, in the order served. */
  it?: string[];
  /**
   * For a JSON array of objects: the masked fields (identifiers, times) the served order follows,
   * as "field:asc" or "field:desc". Two runs' orders that both follow one of them differ only because
   * the masked values differ (random ids, the clock), not in behaviour.
   */
  ord?: string[];
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIME = /\d{4}-\d{2}-\d{2}[T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?/g;
const UUID_ONLY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_ITEMS = 500;

/** The exchange log a run wrote (one Behaviour per line); none where it wrote none. */
export function readExchangeLog(file: string): Behaviour[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Behaviour);
}

/**
 * The answer times of the last `count` exchanges the target served (http/pacing/overlap.ts), from an exchange
 * log read; of one method's only, when it is given.
 */
export function servedAnswerTimes(log: Behaviour[], count: number, method?: string): number[] {
  return log
    .filter((b) => Overlap.served(b.s) && (method === undefined || b.m === method))
    .slice(-count)
    .map((b) => b.ms);
}

/**
 * The answer times a client that will send only `method`'s requests (cleanup: DELETE) learns the target's
 * distance from (pacing/overlap.ts): the last served ones of that method, where there are enough to move the
 * factor, and the fastest answer of all; else the last served of all. A run's last answers are mostly its
 * heaviest reads, queued at the server: they make a far target look near, and cleanup then started with few
 * deletes in flight. The fastest answer of any kind is the way there and back: one method's answers alone
 * would take a near server that serves them in a steady time for a far one.
 */
export function distanceSample(log: Behaviour[], count: number, method: string): number[] {
  const own = servedAnswerTimes(log, count, method);
  if (own.length < SETTLED) return servedAnswerTimes(log, count);
  // Folded rather than spread: a long run's log holds more answers than a call's arguments may.
  const fastest = servedAnswerTimes(log, log.length).reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
  return [fastest, ...own.slice(1 - count)];
}

/** The run's tag as `<run>`, in any case: a pattern operand may carry it uppercased. */
export function maskRunTag(text: string, runTag?: string): string {
  if (!runTag) return text;
  // A fresh name's number (`<tag>-51`) counts names in the order operations happen to ask for them, which
  // concurrency may change: it is masked like an id. Generated names (`<tag>-g123-a`) come from the seed and stay.
  // A name's long edge (cases/edges.ts) is padded to the schema's length after the tag and its operation's mark
  // (four hex digits, engine/exercise.ts): its padding is as long as the tag is short.
  return text
    .replace(new RegExp(runTag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), '<run>')
    .replace(/<run>-\d+(?![\w-])/g, '<run>-<n>')
    .replace(/<run>-edge([0-9a-f]{4})?x+/g, '<run>-edge$1<padding>');
}

export function masked(text: string, runTag?: string): string {
  return maskRunTag(text.replace(UUID, '<uuid>').replace(TIME, '<time>'), runTag);
}

function shortHash(text: string): string {
  return createHash('sha1').update(text).digest('base64url').slice(0, 12);
}

/**
 * The JSON types of a value: objects by their keys, an array by the merge of its items, scalars by type.
 * A null says nothing about its field's type: a nullable field holds null on one run and a value on the
 * next. The shape travels as compact JSON (`null` wildcard, "s" "n" "b", ["a", items], {key: shape}).
 */
export type Shape = null | string | ['a', Shape] | { [key: string]: Shape };

export function shapeOf(value: unknown): Shape {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return ['a', value.slice(0, MAX_ITEMS).map(shapeOf).reduce<Shape>(mergeShapes, null)];
  if (typeof value === 'object')
    return Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, shapeOf(v)]));
  return typeof value === 'number' ? 'n' : typeof value === 'boolean' ? 'b' : 's';
}

/** The kinds a shape stands for: "s", "n", "b", "array", "object", or a union of them ("n|s"). */
function kinds(x: Exclude<Shape, null>): string[] {
  return typeof x === 'string' ? x.split('|') : Array.isArray(x) ? ['array'] : ['object'];
}

/** Merge two shapes seen at one place (items of one array); commutative, so the order of items does not matter. */
function mergeShapes(x: Shape, y: Shape): Shape {
  if (x === null) return y;
  if (y === null) return x;
  if (Array.isArray(x) && Array.isArray(y)) return ['a', mergeShapes(x[1], y[1])];
  if (typeof x === 'object' && typeof y === 'object' && !Array.isArray(x) && !Array.isArray(y)) {
    const out: Record<string, Shape> = { ...x };
    for (const [k, v] of Object.entries(y)) out[k] = k in out ? mergeShapes(out[k], v) : v;
    return out;
  }
  return [...new Set([...kinds(x), ...kinds(y)])].sort().join('|');
}

/**
 * Two shapes describe the same structure when they differ only where one side saw nothing but nulls.
 * Inside arrays only the keys both sides saw are compared: items of a listing hold free-form maps
 * (parameters, labels) whose keys are data, and two deployments never list quite the same data.
 */
export function sameShape(x: Shape, y: Shape, insideArray = false): boolean {
  if (x === null || y === null) return true;
  if (typeof x === 'string' || typeof y === 'string') {
    // In listings a field of any type (an artifact's data) holds what the data holds: kinds need only meet.
    const [kx, ky] = [kinds(x), kinds(y)];
    return insideArray ? kx.some((k) => ky.includes(k)) : kx.join() === ky.join();
  }
  if (Array.isArray(x) || Array.isArray(y)) return Array.isArray(x) && Array.isArray(y) && sameShape(x[1], y[1], true);
  const keys = insideArray
    ? Object.keys(x).filter((k) => k in y)
    : [...new Set([...Object.keys(x), ...Object.keys(y)])];
  return keys.every((k) => k in x && k in y && sameShape(x[k], y[k], insideArray));
}

export function behaviourOf(
  request: { method: string; template: string; pathAndQuery: string; body?: string },
  response: { status: number; ms: number; json?: unknown },
  runTag?: string,
): Behaviour {
  const q = masked(`${request.method} ${request.pathAndQuery} ${request.body ?? ''}`, runTag);
  const b: Behaviour = {
    k: shortHash(q),
    q: q.slice(0, 300),
    m: request.method,
    t: request.template,
    s: response.status,
    ms: response.ms,
  };
  if (response.json !== undefined) {
    b.sh = shapeOf(response.json);
    if (Array.isArray(response.json)) {
      const items = response.json.slice(0, MAX_ITEMS);
      b.it = items.map((item) => shortHash(masked(JSON.stringify(item), runTag)));
      const ord = maskedOrders(items);
      if (ord.length) b.ord = ord;
    }
  }
  return b;
}

/**
 * Whether a sequence of a field's values is in order by `key`, its nulls (if any) together at one end: the
 * order's name (`asc`, `asc nulls first`, `asc nulls last`), or undefined. Where the nulls go is part of the
 * name: SQLite puts them first ascending, PostgreSQL last, and that is a difference of behaviour.
 */
function orderOf(
  values: unknown[],
  key: (v: string | number | boolean) => number | string,
  sign: 1 | -1,
): string | undefined {
  const firstValue = values.findIndex((v) => v !== null);
  const lastValue = values.length - 1 - [...values].reverse().findIndex((v) => v !== null);
  const nulls = firstValue > 0 ? ' nulls first' : lastValue < values.length - 1 ? ' nulls last' : '';
  if (firstValue < 0 || (firstValue > 0 && lastValue < values.length - 1)) return undefined;
  if (values.slice(firstValue, lastValue + 1).includes(null)) return undefined;
  const seq = values.slice(firstValue, lastValue + 1).map((v) => key(v as string | number | boolean));
  if (new Set(seq).size < 2) return undefined;
  const ordered = seq.every((v, i) => i === 0 || sign * (v < seq[i - 1] ? -1 : v > seq[i - 1] ? 1 : 0) >= 0);
  return ordered ? `${sign === 1 ? 'asc' : 'desc'}${nulls}` : undefined;
}

/**
 * The fields the served order follows, as "field:asc" or "field:desc" (with where its nulls are): a masked
 * field (an identifier, a time), or a plain scalar field whose values differ. Items tied on a sort key come in any order; two runs whose
 * orders both follow the same field differ in the order of ties, or of masked values, not in behaviour.
 */
function maskedOrders(items: unknown[]): string[] {
  if (items.length < 2 || !items.every((i) => i && typeof i === 'object' && !Array.isArray(i))) return [];
  const rows = items as Array<Record<string, unknown>>;
  const out: string[] = [];
  for (const field of Object.keys(rows[0])) {
    const values = rows.map((r) => r[field]);
    const scalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
    if (!values.every(scalar) || new Set(values).size < 2) continue;
    // Times compare as instants; identifiers as the strings the server sorted; the rest as served.
    const key = (v: string | number | boolean) =>
      typeof v !== 'string' ? Number(v) : UUID_ONLY.test(v) ? v.toLowerCase() : masked(v) !== v ? Date.parse(v) : v;
    for (const sign of [1, -1] as const) {
      const order = orderOf(values, key, sign);
      if (order) out.push(`${field}:${order}`);
    }
  }
  return out;
}
