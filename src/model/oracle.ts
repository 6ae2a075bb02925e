/**
 * The filter oracle: evaluates a filter body over the run's own objects (as the server read them back),
 * so that the server's answer can be compared with it as a set. Knowledge of meaning comes from the
 * profile (operators, field quirks); relations between collections come from `<collection>_id` fields.
 */
import type { FilterModel } from './filters.js';
import { IGNORED, type OperatorMeaning } from './profiles/operators.js';
import type { Obj } from '../openapi/json.js';

export type Corpus = Record<string, Obj[]>;

export class Unsupported extends Error {}

export interface FilterSemantics {
  operators: Record<string, OperatorMeaning>;
  /** The value a filter field compares, for an object of the collection (default: the value at the path). */
  fieldValue?(collectionKey: string, obj: Obj, path: string[], operator: string, corpus: Corpus): unknown;
  /** "collection.field" the document says the server ignores: every criterion on it drops out. */
  ignored?: ReadonlySet<string>;
  /**
   * Where the spec leaves a criterion's meaning open and the profile knows a release that reads it
   * another way: that reading, which a server may take instead (reported as implementation-defined).
   */
  otherReadings?: ReadonlyArray<OtherReading>;
}

export interface OtherReading {
  /** The criteria it concerns. */
  applies(criterion: { key: string; path: string[]; operator: string }): boolean;
  /** What the server does under it, for the verdict. */
  description: string;
  fieldValue: NonNullable<FilterSemantics['fieldValue']>;
}

const singular = (key: string) => key.replace(/s$/, '');

/** a (of collection A) and b (of B) are related when one names the other by `<singular>_id`. */
export function related(aKey: string, a: Obj, bKey: string, b: Obj): boolean | undefined {
  const aToB = `${singular(bKey)}_id`;
  const bToA = `${singular(aKey)}_id`;
  if (aToB in a) return a[aToB] === b.id;
  if (bToA in b) return b[bToA] === a.id;
  return undefined;
}

/** The semantics under another reading: its criteria read its way, every other criterion as before. */
export function withReading(semantics: FilterSemantics, reading: OtherReading): FilterSemantics {
  const base = semantics.fieldValue;
  return {
    ...semantics,
    fieldValue: (key, obj, path, operator, corpus) =>
      reading.applies({ key, path, operator })
        ? reading.fieldValue(key, obj, path, operator, corpus)
        : base
          ? base(key, obj, path, operator, corpus)
          : valueAt(obj, path),
  };
}

/** The value at a path of an object (undefined where the path ends early). */
export function valueAt(obj: Obj, path: string[]): unknown {
  let v: unknown = obj;
  for (const p of path) v = v && typeof v === 'object' ? (v as Obj)[p] : undefined;
  return v;
}

/**
 * Does one object satisfy one collection filter (`{name: {like_: …}, tags: {all_: …}, operator?}`)?
 * Every node is the AND (or, with `operator: or_`, the OR) of its parts; a node whose operands all drop
 * out is TRUE, as an SQL and_() of nothing is. Inside an OR that makes the whole node true. A field the
 * document says the server ignores is not a part at all: the filter means what it would without it.
 */
export function matches(semantics: FilterSemantics, key: string, obj: Obj, filter: Obj, corpus: Corpus): boolean {
  const node = (n: Obj, path: string[]): boolean => {
    const parts: boolean[] = [];
    for (const [k, v] of Object.entries(n)) {
      if (k === 'operator' || v === null || v === undefined) continue;
      if (semantics.ignored?.has(`${key}.${(k.endsWith('_') ? path : [...path, k]).join('.')}`)) continue;
      if (k.endsWith('_')) {
        const meaning = semantics.operators[k];
        if (!meaning) throw new Unsupported(`operator ${k} on ${key}.${path.join('.')}`);
        const value = semantics.fieldValue ? semantics.fieldValue(key, obj, path, k, corpus) : valueAt(obj, path);
        const verdict = meaning(value, v);
        if (verdict !== IGNORED) parts.push(verdict);
      } else if (typeof v === 'object' && !Array.isArray(v)) parts.push(node(v as Obj, [...path, k]));
      else throw new Unsupported(`${key}.${[...path, k].join('.')} is not a field filter`);
    }
    if (parts.length === 0) return true;
    return n.operator === 'or_' ? parts.some(Boolean) : parts.every(Boolean);
  };
  return node(filter, []);
}

/** The ids of the queried collection's corpus objects the body selects. */
export function evaluate(model: FilterModel, semantics: FilterSemantics, corpus: Corpus, body: Obj): Set<string> {
  const own = model.ownKey!;
  const out = new Set<string>();
  for (const obj of corpus[own] ?? []) {
    let ok = true;
    for (const [key, filter] of Object.entries(body)) {
      if (!model.filters[key] || filter === null || filter === undefined) continue;
      if (key === own) ok = matches(semantics, key, obj, filter as Obj, corpus);
      else {
        // A related filter holds when at least one related object satisfies it (an empty one included).
        const others = corpus[key];
        if (!others) throw new Unsupported(`no corpus of ${key} to relate to ${own}`);
        ok = others.some((o) => {
          const r = related(own, obj, key, o);
          if (r === undefined) throw new Unsupported(`no *_id field relates ${own} and ${key}`);
          return r && matches(semantics, key, o, filter as Obj, corpus);
        });
      }
      if (!ok) break;
    }
    if (ok) out.add(String(obj.id));
  }
  return out;
}
