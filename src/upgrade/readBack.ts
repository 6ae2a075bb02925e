/**
 * The corpus read back: by id and through its collection's read, on the first release (twice, some seconds
 * apart, so that a field that moves by itself is known) and on the second after the migration. What survived
 * is judged per collection: objects read back, lost, and fields changed; a field that moved on the first
 * release between two reads, or a timestamp a migration rewrites, is masked and named.
 */
import type { CollectionSurvival, FieldChange } from '../report/results.js';
import type { UpgradeApi } from './api.js';
import type { CollectionRead, WrittenObject } from './corpus.js';

/** One object as a release served it: its body by id (or from its collection's read), and where it was found. */
export interface ObjectRead {
  byIdStatus?: number;
  body?: Record<string, unknown>;
  /** Listed by its collection's read. */
  listed?: boolean;
}

export type Snapshot = Map<string, ObjectRead>;

const keyOf = (o: Pick<WrittenObject, 'collection' | 'id'>) => `${o.collection} ${o.id}`;

/** The items of a list answer: the array itself, or the first array field of an object (a page of results). */
function itemsOf(body: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(body)) return body as Array<Record<string, unknown>>;
  if (body && typeof body === 'object')
    for (const value of Object.values(body)) if (Array.isArray(value)) return value as Array<Record<string, unknown>>;
  return [];
}

/** Every object of the corpus as `api` serves it now. */
export async function snapshot(api: UpgradeApi, objects: readonly WrittenObject[]): Promise<Snapshot> {
  const lists = new Map<string, Array<Record<string, unknown>>>();
  const listOf = async (read: CollectionRead) => {
    const key = `${read.method} ${read.path} ${JSON.stringify(read.body ?? null)}`;
    if (!lists.has(key)) {
      const answer = await api.send(read.method, read.path, read.method === 'POST' ? (read.body ?? {}) : undefined);
      lists.set(key, answer.status < 300 ? itemsOf(answer.body) : []);
    }
    return lists.get(key)!;
  };
  const seen: Snapshot = new Map();
  for (const object of objects) {
    const read: ObjectRead = {};
    if (object.byId) {
      const answer = await api.send('GET', object.byId.path);
      read.byIdStatus = answer.status;
      if (answer.status < 300) read.body = answer.body as Record<string, unknown>;
    }
    if (object.byFilter) {
      const item = (await listOf(object.byFilter)).find((i) => String(i.id) === object.id);
      read.listed = Boolean(item);
      read.body ??= item;
    }
    seen.set(keyOf(object), read);
  }
  return seen;
}

/** Timestamps a migration may rewrite: never compared, and named in the report. */
export const REWRITTEN_TIMESTAMPS: Readonly<Record<string, string>> = {
  updated: "the row's last write: a migration that rewrites a table's rows sets it",
};

const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;

/** A date-time as its instant in microseconds (a release may write `+00:00` or `Z`, or fewer digits). */
function instant(text: string): number | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[4] ?? 'Z'}`);
  const micros = Number(`${(m[3] ?? '.').slice(1)}000000`.slice(0, 6));
  return Number.isNaN(ms) ? undefined : ms * 1000 + micros;
}

/** Whether the second release's document has a field at a path (false: it dropped it; undefined: it does not say). */
export type DocumentHas = (at: readonly string[]) => boolean | undefined;

/**
 * `after` holds what `before` held: every key of an object (more are allowed), each item, the same instant. A
 * key `after` lacks where its document no longer has the field is not compared: `dropped` hears of it.
 */
export function holds(
  before: unknown,
  after: unknown,
  has: DocumentHas = () => undefined,
  dropped: (at: string[]) => void = () => {},
  at: string[] = [],
): boolean {
  if (typeof before === 'string' && typeof after === 'string') {
    const [a, b] = [instant(before), instant(after)];
    return a !== undefined && b !== undefined ? a === b : before === after;
  }
  if (Array.isArray(before))
    return Array.isArray(after) && before.length === after.length && before.every((v, i) => holds(v, after[i]));
  if (before && typeof before === 'object') {
    if (!after || typeof after !== 'object' || Array.isArray(after)) return false;
    const b = after as Record<string, unknown>;
    return Object.entries(before).every(([k, v]) => {
      if (k in b) return holds(v, b[k], has, dropped, [...at, k]);
      if (has([...at, k]) !== false) return false;
      dropped([...at, k]);
      return true;
    });
  }
  return before === after;
}

/** The fields that differ between two reads of one release: they move by themselves (a time, a computed delta). */
export function movingFields(first: Snapshot, second: Snapshot): Map<string, Set<string>> {
  const moving = new Map<string, Set<string>>();
  for (const [key, read] of first) {
    const collection = key.slice(0, key.indexOf(' '));
    const again = second.get(key)?.body ?? {};
    for (const [field, value] of Object.entries(read.body ?? {}))
      if (!holds(value, again[field])) {
        if (!moving.has(collection)) moving.set(collection, new Set());
        moving.get(collection)!.add(field);
      }
  }
  return moving;
}

/** How one object fared: lost (and how it was missed), or the fields that changed. */
function judgeObject(
  object: WrittenObject,
  before: ObjectRead,
  after: ObjectRead,
  skip: (field: string) => boolean,
  has: DocumentHas,
): { lost?: string; changed: FieldChange[]; dropped: string[] } {
  const misses = [
    object.byId && after.byIdStatus !== undefined && after.byIdStatus >= 300
      ? `GET ${object.byId.template} answered ${after.byIdStatus}`
      : '',
    object.byFilter && before.listed && !after.listed
      ? `not listed by ${object.byFilter.method} ${object.byFilter.path.replace(/\?.*$/, '')}`
      : '',
  ].filter(Boolean);
  if (misses.length || !after.body) return { lost: misses.join('; ') || 'not read back', changed: [], dropped: [] };
  const changed: FieldChange[] = [];
  const dropped: string[] = [];
  const note = (at: string[]) => dropped.push(at.join('.'));
  for (const [field, value] of Object.entries(before.body ?? {})) {
    if (skip(field)) continue;
    if (!holds({ [field]: value }, after.body, has, note))
      changed.push({ id: object.id, field, before: value, after: after.body[field] });
  }
  return { changed, dropped };
}

/** What survived, per collection in the corpus's order. */
export function survival(
  objects: readonly WrittenObject[],
  before: Snapshot,
  after: Snapshot,
  moving: Map<string, Set<string>>,
  documentHas: (template: string, at: readonly string[]) => boolean | undefined,
): CollectionSurvival[] {
  const byCollection = new Map<string, CollectionSurvival>();
  for (const object of objects) {
    const row = byCollection.get(object.collection) ?? {
      collection: object.collection,
      written: 0,
      readBack: 0,
      lost: [],
      changed: [],
      dropped: [],
      masked: [],
    };
    byCollection.set(object.collection, row);
    row.written++;
    const movers = moving.get(object.collection) ?? new Set<string>();
    const masked = new Map(row.masked.map((m) => [m.field, m.why]));
    const skip = (field: string) => {
      const why = movers.has(field)
        ? 'changed between two reads of the first release'
        : field in REWRITTEN_TIMESTAMPS
          ? REWRITTEN_TIMESTAMPS[field]
          : undefined;
      if (why) masked.set(field, why);
      return why !== undefined;
    };
    const judged = judgeObject(object, before.get(keyOf(object)) ?? {}, after.get(keyOf(object)) ?? {}, skip, (at) =>
      object.byId ? documentHas(object.byId.template, at) : undefined,
    );
    row.masked = [...masked].map(([field, why]) => ({ field, why }));
    if (judged.lost) row.lost.push({ id: object.id, how: judged.lost });
    else row.readBack++;
    row.changed.push(...judged.changed);
    row.dropped = [...new Set([...row.dropped, ...judged.dropped])];
  }
  return [...byCollection.values()];
}
