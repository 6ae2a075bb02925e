/**
 * Generated filter bodies for a collection (fast-check): one to three field criteria drawn from the
 * document's filter model, with operands drawn from the run's corpus (values present, absent, at the
 * boundary, in the other case, with ILIKE wildcards, empty lists and strings), sometimes combined with
 * `operator: or_`, sometimes with a filter on a related collection.
 */
import fc from 'fast-check';
import { OFFSETS_MINUTES, sameInstantAt } from './instants.js';
import { nonNull, type FilterField, type FilterModel } from '../model/filters.js';
import type { OpenApiDocument } from '../openapi/document.js';
import type { Schema } from '../openapi/operations.js';
import type { Corpus, FilterSemantics } from '../model/oracle.js';
import type { Obj } from '../openapi/json.js';
import { related } from '../model/oracle.js';
import { UNKNOWN_UUID } from '../model/profiles/profile.js';

export interface Criterion {
  key: string;
  path: string[];
  operator: string;
  operand: unknown;
}

/** (collection, field, operator) triples, as coverage counts them. */
export const tripleOf = (c: Pick<Criterion, 'key' | 'path' | 'operator'>) =>
  `${c.key}.${c.path.join('.')}.${c.operator}`;

function values(
  semantics: FilterSemantics,
  key: string,
  corpus: Corpus,
  field: FilterField,
  operator: string,
): unknown[] {
  const out: unknown[] = [];
  for (const obj of corpus[key] ?? []) {
    const v = semantics.fieldValue
      ? semantics.fieldValue(key, obj, field.path, operator, corpus)
      : field.path.reduce<unknown>((o, p) => (o as Obj)?.[p], obj);
    if (Array.isArray(v)) out.push(...v);
    else if (v !== null && v !== undefined) out.push(v);
  }
  return [...new Set(out.map((v) => JSON.stringify(v)))].map((v) => JSON.parse(v));
}

/** A value no object has, of the operand's kind: a UUID, an enum member nobody uses, else a string. */
function absentFor(doc: OpenApiDocument, schema: Schema, seen: unknown[]): unknown[] {
  const s = nonNull(doc, schema) as Schema & { items?: Schema; format?: string };
  const item = (s.items ? nonNull(doc, s.items) : s) as { format?: string; enum?: unknown[] };
  if (item.enum) return item.enum.filter((v) => !seen.includes(v)).slice(0, 1);
  return [item.format === 'uuid' ? UNKNOWN_UUID : 'conformance-absent-value'];
}

/**
 * A corpus string as the run tag's part (up to the end of the tag, or nothing when the string has none)
 * and the rest, the part every run has alike.
 */
export function splitAtTag(s: string, runTag: string): { head: string; rest: string } {
  const at = runTag ? s.indexOf(runTag) : -1;
  return at < 0 ? { head: '', rest: s } : { head: s.slice(0, at + runTag.length), rest: s.slice(at + runTag.length) };
}

function operandArbitrary(
  operator: string,
  seen: unknown[],
  bound: string,
  absent: unknown[],
  runTag: string,
): fc.Arbitrary<unknown> | undefined {
  const strings = seen.filter((v): v is string => typeof v === 'string');
  switch (operator) {
    case 'any_':
    case 'not_any_':
    case 'all_':
    case 'id_':
    case 'type_':
      return fc.subarray([...seen, ...absent], { maxLength: Math.min(3, seen.length + absent.length) });
    case 'eq_':
      return seen.length ? fc.constantFrom(...seen) : fc.boolean();
    case 'is_null_':
    case 'exists_':
      return fc.boolean();
    case 'before_':
    case 'after_': {
      // The stored value itself (the inclusive boundary, to the microsecond) or a millisecond either side, at
      // its own offset or another (instants.ts).
      const times = [...strings.filter((s) => /\d{4}-\d{2}-\d{2}T/.test(s)), bound];
      return fc
        .tuple(fc.constantFrom(...times), fc.constantFrom(-1, 0, 0, 1), fc.constantFrom(undefined, ...OFFSETS_MINUTES))
        .map(([t, d, offset]) => {
          const moved = d === 0 ? t : new Date(Date.parse(t) + d).toISOString();
          return offset === undefined ? moved : (sameInstantAt(moved, offset) ?? moved);
        });
    }
    case 'like_':
    case 'startswith_': {
      if (!strings.length) return undefined;
      return fc
        .tuple(fc.constantFrom(...strings), fc.nat(), fc.nat(), fc.constantFrom('same', 'upper', 'lower', 'wild'))
        .map(([s, a, b, how]) => {
          // The run tag is cut whole or not at all, and never changed: the same seed sends the same
          // operands whatever the tag (the request hash masks a whole tag, not a piece of one).
          const { head, rest } = splitAtTag(s, runTag);
          const start = operator === 'startswith_' || !rest ? 0 : a % rest.length;
          // At least one character, unless the tag before it already makes the operand.
          const least = operator === 'startswith_' && head ? 0 : 1;
          let part = rest.slice(start, start + least + (b % Math.max(1, rest.length - start)));
          if (how === 'upper') part = part.toUpperCase();
          if (how === 'lower') part = part.toLowerCase();
          if (how === 'wild') part = part.replace(/[-%]/g, '_');
          const operand = operator === 'startswith_' || !part ? head + part : part;
          return operand || s;
        });
    }
    case 'ge_':
    case 'le_':
      return seen.length ? fc.constantFrom(...seen) : fc.integer({ min: 0, max: 10 });
  }
  return undefined;
}

/** The operands every triple is tried with before random ones: the boundary and the empty cases. */
/**
 * The operands every run tries first. A pattern is cut from the run tag whole or not at all (the tag
 * uppercased, the last characters after it), so that two run tags send the same requests.
 */
function edgeOperands(operator: string, seen: unknown[], absent: unknown[], runTag: string): unknown[] {
  const strings = seen.filter((v): v is string => typeof v === 'string');
  switch (operator) {
    case 'any_':
    case 'not_any_':
    case 'all_':
      return [seen.slice(0, 1), seen.slice(0, 2), [], absent];
    case 'is_null_':
    case 'exists_':
      return [true, false];
    case 'eq_':
      return seen.length ? seen : [true, false];
    case 'before_':
    case 'after_': {
      // The boundaries as stored, then each at an offset other than its own: one instant, another text.
      const times = strings.filter((t) => /\d{4}-\d{2}-\d{2}T/.test(t)).slice(0, 3);
      const elsewhere = times.map((t, i) => sameInstantAt(t, OFFSETS_MINUTES[i % OFFSETS_MINUTES.length]!));
      return [...times, ...elsewhere.filter((t): t is string => t !== undefined)];
    }
    case 'like_':
    case 'startswith_': {
      if (!strings.length) return [];
      const first = splitAtTag(strings[0], runTag);
      const last = splitAtTag(strings[strings.length - 1], runTag);
      return [
        (first.head || strings[0].slice(0, 3)).toUpperCase(),
        (last.rest ? last.rest.slice(-3) : last.head).toLowerCase(),
        '',
      ];
    }
    case 'ge_':
    case 'le_':
      return seen.length ? seen.slice(0, 2) : [0, 1];
  }
  return [];
}

/** The document says the server ignores the field ("If provided, will be ignored"). */
export function documentedAsIgnored(field: FilterField): boolean {
  return field.deprecated !== undefined && /\bignored\b/i.test(field.deprecated);
}

export interface FilterCases {
  /** Criteria the generator can draw, by triple. */
  triples: Map<string, fc.Arbitrary<Criterion>>;
  /** One-criterion bodies every run tries first: each triple with its edge operands. */
  examples: Criterion[];
  /** Triples of the document the semantics cannot judge, with the reason. */
  unknown: Map<string, string>;
}

/** What the generator can say about each filter field and operator of the model. */
export function filterCases(
  doc: OpenApiDocument,
  model: FilterModel,
  semantics: FilterSemantics,
  corpus: Corpus,
  bound: string,
  runTag: string,
): FilterCases {
  const triples = new Map<string, fc.Arbitrary<Criterion>>();
  const unknown = new Map<string, string>();
  const examples: Criterion[] = [];
  for (const [key, filter] of Object.entries(model.filters)) {
    for (const field of filter.fields)
      for (const operator of Object.keys(field.operators)) {
        const triple = tripleOf({ key, path: field.path, operator });
        if (!semantics.operators[operator]) {
          unknown.set(triple, `the profile gives no meaning to ${operator}`);
          continue;
        }
        // A deprecated field the document says is ignored is still checked: the server must ignore it.
        if (field.deprecated && !documentedAsIgnored(field)) {
          unknown.set(triple, `the document marks the field deprecated: ${field.deprecated}`);
          continue;
        }
        if (!corpus[key]?.length) {
          unknown.set(triple, `no corpus of ${key}`);
          continue;
        }
        if (
          key !== model.ownKey &&
          related(model.ownKey!, corpus[model.ownKey!]?.[0] ?? {}, key, corpus[key][0]) === undefined
        ) {
          unknown.set(triple, `no *_id field relates ${model.ownKey} and ${key}`);
          continue;
        }
        const seen = values(semantics, key, corpus, field, operator);
        const absent = absentFor(doc, field.operators[operator], seen);
        const arb = operandArbitrary(operator, seen, bound, absent, runTag);
        if (arb)
          for (const operand of edgeOperands(operator, seen, absent, runTag))
            examples.push({ key, path: field.path, operator, operand });
        if (!arb) {
          unknown.set(triple, `no operand for ${operator} from the corpus`);
          continue;
        }
        triples.set(
          triple,
          arb.map((operand) => ({ key, path: field.path, operator, operand })),
        );
      }
  }
  return { triples, unknown, examples };
}

/** The body of one criterion (`{key: {path…: {operator: operand}}}`). */
export function bodyOf(criteria: Criterion[]): Obj {
  const body: Obj = {};
  for (const c of criteria) put(body, c);
  return body;
}

function put(body: Obj, c: Criterion): void {
  let node = (body[c.key] ??= {}) as Obj;
  for (const p of c.path) node = (node[p] ??= {}) as Obj;
  node[c.operator] = c.operand;
}

/** Why a collection has no filter to generate: no (field, operator) of its filter had an operand. */
export function noFilterCase(key: string, cases: FilterCases): string {
  const reasons = [...new Set(cases.unknown.values())];
  return `no filter of ${key} could be built${reasons.length ? `: ${reasons.slice(0, 3).join('; ')}` : ' (its filter schema offers no field and operator the profile knows)'}`;
}

/**
 * A body of one to three criteria (own and related collections), maybe with `operator: or_`; never with it where
 * `anded`, whose draws are otherwise the same (a body that must stay ANDed with what is added to it).
 */
export function filterBodyArbitrary(
  model: FilterModel,
  cases: FilterCases,
  { anded = false }: { anded?: boolean } = {},
): fc.Arbitrary<{ body: Obj; criteria: Criterion[]; or: boolean }> {
  const arbs = [...cases.triples.values()];
  return fc
    .tuple(
      fc.uniqueArray(fc.oneof(...arbs), { minLength: 1, maxLength: 3, selector: tripleOf }),
      fc.boolean(),
      fc.boolean(),
    )
    .map(([criteria, wantOr, emptyRelated]) => {
      const body: Obj = {};
      // Prefect drops a state sub-filter with both any_ and not_any_ (facts §2): never ask for both.
      const kept = criteria.filter(
        (c, i) => !criteria.slice(0, i).some((d) => d.key === c.key && d.path.join('.') === c.path.join('.')),
      );
      for (const c of kept) put(body, c);
      const own = model.ownKey!;
      const ownCount = kept.filter((c) => c.key === own).length;
      const or = !anded && wantOr && model.filters[own].combinable && ownCount >= 2;
      if (or) (body[own] as Obj).operator = 'or_';
      if (emptyRelated && kept.every((c) => c.key === own)) {
        const rel = Object.keys(model.filters).find(
          (k) => k !== own && cases.triples.has([...cases.triples.keys()].find((t) => t.startsWith(`${k}.`)) ?? ''),
        );
        if (rel) body[rel] = {};
      }
      return { body, criteria: kept, or };
    });
}
