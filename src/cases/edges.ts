/**
 * The boundary values of a body's fields, sent deterministically before the random ones, so that a seed
 * changes only the random part: numbers below and at a minimum, 0, −1, at and above a maximum; strings
 * empty, long and non-ASCII; null where a field is nullable; empty arrays and objects; the earliest and
 * latest instants of a date-time. Where the document sets no bound, values past what an implementation must
 * hold (EXTREME): a number past 64 bits, the earliest and latest instants at offsets that carry them past year 1
 * and year 9999 in UTC, and of every free string, one with the characters URLs reserve and one longer than a
 * database keeps in an index entry. A field that names the
 * run's object keeps the run's name in its edges, so that an edge never reaches an object that is not the run's.
 */
import type { OpenApiDocument } from '../openapi/document.js';
import { resolveRef, type Schema } from '../openapi/operations.js';
import { mergeAllOf } from './arbitrary.js';

/** What an edge is, as a row's name: every field that has this edge gets it in the same body. */
export type EdgeLabel =
  | 'null'
  | 'below-minimum'
  | 'minimum'
  | 'zero'
  | 'minus-one'
  | 'maximum'
  | 'above-maximum'
  | 'empty'
  | 'long'
  | 'too-long'
  | 'non-ascii'
  | 'empty-array'
  | 'empty-object'
  | 'earliest'
  | 'latest'
  | 'past-64-bits'
  | 'earliest-offset'
  | 'latest-offset'
  | 'reserved-characters'
  | 'past-storage'
  | 'unknown-only'
  | 'null-not-allowed';

export interface FieldEdge {
  field: string;
  label: EdgeLabel;
  value: unknown;
}

/** One body of edges: the recipe's body with each of `fields` set to its edge of `label`. */
export interface EdgeRow {
  label: EdgeLabel;
  fields: string[];
  json: Record<string, unknown>;
  /** Whether the document's schema accepts the body (Ajv's word): invalid rows are negative cases. */
  valid: boolean;
}

type S = Schema & {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  minProperties?: number;
  additionalProperties?: boolean | Schema;
  items?: Schema;
};

/**
 * The labels of values past a bound the document sets: a body with one of them is invalid. `null-not-allowed`
 * is null for an optional field whose schema does not take it: leaving a field out is not setting it to null.
 */
export const OUT_OF_RANGE: ReadonlySet<EdgeLabel> = new Set([
  'below-minimum',
  'above-maximum',
  'too-long',
  'null-not-allowed',
]);

/** The edges a field that marks the run's objects may take: a null, which the ledger still holds by its id. */
const MARK_EDGES: ReadonlySet<EdgeLabel> = new Set(['null', 'null-not-allowed']);

/**
 * The labels of values the document admits but an implementation need not hold: JSON lets it limit the range
 * and precision of the numbers it takes (RFC 8259 §6), a date type may end at years 1 and 9999 in UTC, and a
 * server may refuse in its names the characters its URLs and pages must escape (RFC 3986 §2.2). A refusal (4xx)
 * is a fair answer to them; a server error is not. Each is an input class of its own.
 */
export const EXTREME: ReadonlySet<EdgeLabel> = new Set([
  'past-64-bits',
  'earliest-offset',
  'latest-offset',
  'reserved-characters',
  'past-storage',
  'unknown-only',
]);

/** A long string where the schema sets no maximum length: longer than any name a person types. */
const LONG = 1000;
/**
 * A string past what a database keeps in one index entry or one page (PostgreSQL: 2,704 bytes in a B-tree
 * entry, 8,191 in an index row), where the document sets no maximum length: a server may refuse it, and must
 * not crash. Its characters do not repeat in a pattern, so that no compression brings it back under the limit.
 */
const PAST_STORAGE = 10_000;
// Lower case: a name rule that refuses capitals (a flow run input's key) would hide the length behind the case.
const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** `n` characters after `prefix`, drawn by a fixed linear congruential sequence: the same text on every run. */
function incompressible(prefix: string, n: number): string {
  let state = 12345;
  let text = prefix;
  while (text.length < n) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    text += ALPHANUMERIC[state % ALPHANUMERIC.length];
  }
  return text;
}
const NON_ASCII = 'Grüße, 世界 🌍';
/**
 * Characters a URL reserves or escapes (RFC 3986 §2.2, §2.1) and markup escapes, which name rules forbid. Not
 * `/`: a name with one, taken, could no longer be read back by a path that holds it.
 */
const RESERVED = '<&%>';

/** The branches of a field's schema apart from null, and whether null is one of them. */
function branchesOf(doc: OpenApiDocument, schema: Schema): { branches: S[]; nullable: boolean } {
  const s = mergeAllOf({ doc }, resolveRef<S>(doc, schema));
  const union = s.anyOf ?? s.oneOf;
  const all = union ? union.map((b) => mergeAllOf({ doc }, resolveRef<S>(doc, b))) : [s];
  const isNull = (b: S) => b.type === 'null' || (Array.isArray(b.type) && b.type.length === 1 && b.type[0] === 'null');
  const typeList = (b: S) => (Array.isArray(b.type) ? b.type : []);
  return {
    branches: all.filter((b) => !isNull(b)),
    nullable: all.some(isNull) || typeList(s).includes('null'),
  };
}

const typeOf = (b: S): string | undefined =>
  Array.isArray(b.type) ? b.type.find((t) => t !== 'null') : (b.type ?? (b.properties ? 'object' : undefined));

function numberEdges(b: S, integer: boolean): Array<[EdgeLabel, number]> {
  const step = integer ? 1 : 0.5;
  const out: Array<[EdgeLabel, number]> = [];
  const min = b.minimum ?? (b.exclusiveMinimum !== undefined ? b.exclusiveMinimum + step : undefined);
  const max = b.maximum ?? (b.exclusiveMaximum !== undefined ? b.exclusiveMaximum - step : undefined);
  if (min !== undefined) out.push(['below-minimum', b.minimum !== undefined ? min - step : b.exclusiveMinimum!]);
  // Where the document sets no bound, the bounds of the numbers the generators draw (32-bit integers, ±1e9).
  out.push(['minimum', min ?? (integer ? -(2 ** 31) : -1e9)]);
  out.push(['zero', 0], ['minus-one', -1]);
  out.push(['maximum', max ?? (integer ? 2 ** 31 - 1 : 1e9)]);
  if (max !== undefined) out.push(['above-maximum', b.maximum !== undefined ? max + step : b.exclusiveMaximum!]);
  // 2^64, integer or not: past every 64-bit integer, and as a number of seconds past what a date type holds.
  else out.push(['past-64-bits', 2 ** 64]);
  return b.multipleOf ? out.filter(([, v]) => Number.isInteger(v / b.multipleOf!)) : out;
}

function stringEdges(b: S, runName: string | undefined): Array<[EdgeLabel, string]> {
  if (b.enum || 'const' in b || b.pattern) return [];
  if (b.format === 'date-time')
    return [
      ['earliest', '0001-01-01T00:00:00Z'],
      ['latest', '9999-12-31T23:59:59Z'],
      // The same dates at the largest offsets RFC 3339 allows: in UTC the first falls in year 0, the second in
      // year 10000.
      ['earliest-offset', '0001-01-01T00:00:00+23:59'],
      ['latest-offset', '9999-12-31T23:59:59-23:59'],
    ];
  if (b.format === 'date')
    return [
      ['earliest', '0001-01-01'],
      ['latest', '9999-12-31'],
    ];
  // A uuid names another object (the run's references give those); other formats have no edge of their own here.
  if (b.format) return [];
  // The run's name stays at the start: the object an edge makes or reaches is still recognisably the run's.
  const base = runName ?? '';
  const long = (n: number) => base + 'x'.repeat(Math.max(0, n - base.length));
  const afterName = (text: string) => (base ? `${base}-${text}` : text);
  const out: Array<[EdgeLabel, string]> = [];
  if (runName === undefined && (b.minLength ?? 0) === 0) out.push(['empty', '']);
  out.push(['long', long(b.maxLength ?? LONG)]);
  if (b.maxLength !== undefined) out.push(['too-long', long(b.maxLength + 1)]);
  else out.push(['past-storage', incompressible(base ? `${base}-` : '', PAST_STORAGE)]);
  out.push(['non-ascii', afterName(NON_ASCII)], ['reserved-characters', afterName(RESERVED)]);
  return out;
}

/**
 * The edges of one field, from its schema; `runName`, for a field that names the run's object, what its edges
 * start with; `nullMark`, whether such a name may be null all the same (EdgeInput.marksMayBeNull).
 */
export function edgesOfField(
  doc: OpenApiDocument,
  field: string,
  schema: Schema,
  runName?: string,
  nullMark = false,
): FieldEdge[] {
  const { branches, nullable } = branchesOf(doc, schema);
  const edges: Array<[EdgeLabel, unknown]> = [];
  // A name keeps the run's mark: null would leave the object without it, unless the run holds it by its path.
  if (nullable && (runName === undefined || nullMark)) edges.push(['null', null]);
  for (const b of branches) {
    switch (typeOf(b)) {
      case 'integer':
        edges.push(...numberEdges(b, true));
        break;
      case 'number':
        edges.push(...numberEdges(b, false));
        break;
      case 'string':
        edges.push(...stringEdges(b, runName));
        break;
      case 'array':
        if ((b.minItems ?? 0) === 0) edges.push(['empty-array', []]);
        break;
      case 'object':
        if ((b.minProperties ?? 0) === 0) edges.push(['empty-object', {}]);
        break;
    }
  }
  // One edge per label and per value: at a minimum of 0, `zero` is `minimum`.
  const seen = new Set<string>();
  const fresh = (key: string) => !seen.has(key) && Boolean(seen.add(key));
  return edges
    .filter(([label, value]) => fresh(label) && fresh(`= ${JSON.stringify(value)}`))
    .map(([label, value]) => ({ field, label, value }));
}

export interface EdgeInput {
  doc: OpenApiDocument;
  bodySchema: Schema;
  /** The recipe's body, on which each row sets its fields. */
  body: Record<string, unknown>;
  /** Fields whose values the run gives and an edge must not change: references, what the profile holds. */
  keeps(field: string): boolean;
  /** Fields that mark an object as the run's, names aside (its tags): an edge would leave it unmarked. */
  marks(field: string): boolean;
  /**
   * The body changes an object the exercise holds by its path (an update of its own object), so that a name or
   * a mark may be null (and nothing else): no filter need find the object again. A create's null would make
   * an object the run could not tell from another's.
   */
  marksMayBeNull: boolean;
  /** Whether a field names the run's object (its edges keep the run's name). */
  isName(field: string): boolean;
  /**
   * What a name's edges start with: the run's tag and a fixed word, not a fresh name's counter, whose value
   * depends on the order the run's requests were built in (the request sequence of a seed stays one).
   */
  nameStem: string;
  /** Whether the document's schema accepts a body. */
  accepts(body: unknown): boolean;
}

/**
 * The rows of edges of a body, one per label, each setting every field that has an edge of that label.
 * A row is one request; where the server does not take it as a valid body should be taken, the exercise
 * sends its fields one at a time to find which one is the cause.
 */
export function edgeRows(input: EdgeInput): EdgeRow[] {
  const root = mergeAllOf({ doc: input.doc }, resolveRef<S>(input.doc, input.bodySchema));
  const byLabel = new Map<EdgeLabel, FieldEdge[]>();
  const required = new Set(root.required ?? []);
  for (const [field, schema] of Object.entries(root.properties ?? {})) {
    const mark = input.marks(field);
    if (input.keeps(field)) continue;
    const current = input.body[field];
    const runName = input.isName(field) && typeof current === 'string' ? input.nameStem : undefined;
    if (input.isName(field) && runName === undefined) continue;
    // A mark's null makes an object the run holds by its id alone (the ledger's): sent, as a client may send it.
    const edges = edgesOfField(input.doc, field, schema, runName, input.marksMayBeNull || mark);
    // An optional field may be left out; null is another value, which its schema may not take.
    if (!required.has(field) && !edges.some((e) => e.label === 'null') && !input.isName(field))
      edges.push({ field, label: 'null-not-allowed', value: null });
    for (const edge of mark ? edges.filter((e) => MARK_EDGES.has(e.label)) : edges) {
      if (JSON.stringify(edge.value) === JSON.stringify(current)) continue;
      // The field's schema alone does not say everything (an object's required members, a union's branches):
      // the document's word on the body with this edge alone decides whether it is what its label says.
      if (input.accepts({ ...input.body, [field]: edge.value }) === OUT_OF_RANGE.has(edge.label)) continue;
      byLabel.set(edge.label, [...(byLabel.get(edge.label) ?? []), edge]);
    }
  }
  return [...byLabel].map(([label, edges]) => {
    const json = { ...input.body };
    for (const e of edges) json[e.field] = e.value;
    return { label, fields: edges.map((e) => e.field).sort(), json, valid: input.accepts(json) };
  });
}

/** The row cut to one of its fields: the recipe's body with that field's edge alone. */
export function singleField(row: EdgeRow, field: string, body: Record<string, unknown>): Record<string, unknown> {
  return { ...body, [field]: row.json[field] };
}

/** The names of the properties a body's schema declares. */
export function propertiesOf(doc: OpenApiDocument, bodySchema: Schema): string[] {
  return Object.keys(mergeAllOf({ doc }, resolveRef<S>(doc, bodySchema)).properties ?? {});
}

/**
 * The fields of a body that count an amount the request takes or gives back: integers bounded below at zero
 * (exclusive) or one, and not above (a v2 concurrency limit's `slots` in its increment and decrement). An
 * action that moves a counter by such an amount can be driven past the counter's own bounds by its repeats.
 */
export function positiveAmounts(doc: OpenApiDocument, bodySchema: Schema): Array<{ field: string; least: number }> {
  const root = mergeAllOf({ doc }, resolveRef<S>(doc, bodySchema));
  const leastOf = (b: S): number | undefined => {
    if (typeOf(b) !== 'integer' || b.maximum !== undefined || b.exclusiveMaximum !== undefined) return undefined;
    if (b.exclusiveMinimum !== undefined && b.exclusiveMinimum >= 0) return Math.floor(b.exclusiveMinimum) + 1;
    return b.minimum !== undefined && b.minimum >= 1 ? Math.ceil(b.minimum) : undefined;
  };
  return Object.entries(root.properties ?? {}).flatMap(([field, schema]) => {
    const least = branchesOf(doc, schema)
      .branches.map(leastOf)
      .find((l) => l !== undefined);
    return least === undefined ? [] : [{ field, least }];
  });
}

/**
 * A body of one property the document does not name and nothing else (`unknown-only`, EXTREME): where the
 * schema forbids other properties or requires some it is invalid, elsewhere it reads as an empty body. Either
 * way a server may refuse it, and may not crash on it. A body that names no property, or whose other
 * properties have a schema of their own, is a map (a flow run's labels): any key is data there, none unknown.
 */
export function unknownOnlyBody(doc: OpenApiDocument, bodySchema: Schema): Record<string, unknown> | undefined {
  const root = mergeAllOf({ doc }, resolveRef<S>(doc, bodySchema));
  const map = Object.keys(root.properties ?? {}).length === 0 || typeof root.additionalProperties === 'object';
  if (typeOf(root) !== 'object' || map) return undefined;
  let name = 'conformance_unknown';
  while (root.properties && name in root.properties) name = `_${name}`;
  return { [name]: true };
}
