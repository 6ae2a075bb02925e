/**
 * The run's exchange log: one line per exchange, what it did with what differs between two runs masked
 * (identifiers, times, the run's own tag), so that two deployments answering the same generated request can be
 * compared: the request's key, the response's status, its shape (JSON types, not values) and, for an array,
 * the order of its items. The client writes it (http/behaviour.ts); `compare`, progress, cleanup and the bench
 * read it: the format and its masking are here, where each of them may import it.
 */
import { existsSync, readFileSync } from 'node:fs';

export interface Behaviour {
  /** Hash of the masked request: method, path and query, body. */
  key: string;
  /** The masked request, shortened, for people. */
  request: string;
  method: string;
  template: string;
  status: number;
  ms: number;
  /** When the answer came, in ms since the run's client was made (absent in logs of earlier versions). */
  at?: number;
  /** Who sent it: a check's id, `exercise`, or `other`. */
  by?: string;
  /** The operation its sender worked for (`METHOD /path`), where the sender works for one: a check's or the exercise's. */
  for?: string;
  /** The response's JSON shape (see Shape). */
  shape?: Shape;
  /** For a JSON array: a short hash of each masked item, in the order served. */
  items?: string[];
  /**
   * For a JSON array of objects: the masked fields (identifiers, times) the served order follows,
   * as "field:asc" or "field:desc". Two runs' orders that both follow one of them differ only because
   * the masked values differ (random ids, the clock), not in behaviour.
   */
  orders?: string[];
}

/** The one-letter names of the log's fields before they were spelled out: a log of an earlier run still reads. */
const FORMER_FIELDS: Readonly<Record<string, keyof Behaviour>> = {
  k: 'key',
  q: 'request',
  m: 'method',
  t: 'template',
  s: 'status',
  sh: 'shape',
  it: 'items',
  ord: 'orders',
};

/** A line of the log as a Behaviour, its former field names spelled out. */
function spelledOut(line: Record<string, unknown>): Behaviour {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(line)) out[FORMER_FIELDS[name] ?? name] = value;
  return out as unknown as Behaviour;
}

/** A UUID anywhere in a text (global: for replace and matchAll). */
export const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIME = /\d{4}-\d{2}-\d{2}[T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?/g;
/** How many items of an array its shape and order look at. */
export const MAX_ITEMS = 500;

/** The exchange log a run wrote (one Behaviour per line); none where it wrote none. */
export function readExchangeLog(file: string): Behaviour[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => spelledOut(JSON.parse(line) as Record<string, unknown>));
}

/** The run's tag as `<run>`, in any case: a pattern operand may carry it uppercased. */
export function maskRunTag(text: string, runTag?: string): string {
  if (!runTag) return text;
  // A fresh name's number (`<tag>-51`, and changed by a check: `<tag>-51-patched`) counts names in the order
  // operations happen to ask for them, which concurrency may change: it is masked like an id. Generated names
  // (`<tag>-g123-a`) come from the seed and stay.
  // A name's long edge (cases/edges.ts) is padded to the schema's length after the tag and its operation's mark
  // (four hex digits, engine/exercise.ts): its padding is as long as the tag is short.
  return text
    .replace(new RegExp(runTag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), '<run>')
    .replace(/<run>-\d+(?!\w)/g, '<run>-<n>')
    .replace(/<run>-edge([0-9a-f]{4})?x+/g, '<run>-edge$1<padding>');
}

export function masked(text: string, runTag?: string): string {
  return maskRunTag(text.replace(UUID, '<uuid>').replace(TIME, '<time>'), runTag);
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
