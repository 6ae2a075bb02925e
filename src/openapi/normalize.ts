/**
 * Everything downstream speaks JSON Schema 2020-12, but servers emit schemas in older dialects: OpenAPI 3.0
 * is draft 4 (`nullable`, boolean exclusive bounds), and frameworks that emit 3.1 still leave draft-4 and
 * 3.0 constructs in it (pydantic v1 writes tuple `items` arrays; some write `nullable` into a 3.1 document).
 * Each construct below has one meaning, so it is rewritten here, once, and each kind of rewrite is
 * reported (how often, and the first place) so that a user can see what the suite read differently from
 * the letter of the document.
 */
import type { OpenApiDocument } from './document.js';

type Json = unknown;

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One kind of rewrite the document needed: how many schemas, and the first one's place. */
export interface Normalisation {
  /** A stable id: `nullable`, `exclusive-bound`, `tuple-items`, `single-allof`, `operation-id`. */
  kind: string;
  description: string;
  count: number;
  /** JSON pointer of the first schema rewritten. */
  first: string;
}

const DESCRIPTIONS: Record<string, string> = {
  nullable: 'nullable: true (OpenAPI 3.0) read as a type that also admits null',
  'exclusive-bound': 'boolean exclusiveMinimum/exclusiveMaximum (draft 4) read as the numeric bound of 2020-12',
  'tuple-items': 'items as an array (a tuple before 2020-12) read as prefixItems, additionalItems as items',
  'operation-id': 'an operation without operationId is named by its method and path',
  'single-allof': 'allOf of one $ref beside annotations (pydantic v1) read as that $ref with the annotations',
};

/** Keywords that only annotate: a schema made of them and one `allOf: [{$ref}]` means the `$ref` itself. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  'example',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

class Notes {
  private readonly seen = new Map<string, Normalisation>();
  note(kind: string, where: string): void {
    const n = this.seen.get(kind);
    if (n) n.count += 1;
    else this.seen.set(kind, { kind, description: DESCRIPTIONS[kind] ?? kind, count: 1, first: where });
  }
  list(): Normalisation[] {
    return [...this.seen.values()];
  }
}

/** Rewrite one schema object (not its children) into 2020-12 form. */
export function normalizeSchemaNode(
  schema: Record<string, Json>,
  note: (kind: string) => void = () => {},
): Record<string, Json> {
  let out: Record<string, Json> = { ...schema };
  const only = Array.isArray(out.allOf) && out.allOf.length === 1 ? out.allOf[0] : undefined;
  if (
    isObject(only) &&
    typeof only.$ref === 'string' &&
    Object.keys(only).length === 1 &&
    Object.keys(out).every((k) => k === 'allOf' || ANNOTATIONS.has(k) || k === 'nullable')
  ) {
    note('single-allof');
    const { allOf: _one, ...annotations } = out;
    out = { ...annotations, $ref: only.$ref };
  }
  if (Array.isArray(out.items)) {
    note('tuple-items');
    out.prefixItems = out.items;
    delete out.items;
    if (out.additionalItems !== undefined) out.items = out.additionalItems;
    delete out.additionalItems;
  }
  for (const [bound, limit] of [
    ['exclusiveMaximum', 'maximum'],
    ['exclusiveMinimum', 'minimum'],
  ] as const) {
    if (typeof out[bound] !== 'boolean') continue;
    note('exclusive-bound');
    if (out[bound] === true && typeof out[limit] === 'number') {
      out[bound] = out[limit];
      delete out[limit];
    } else delete out[bound];
  }
  if (!('nullable' in out)) return out;
  note('nullable');
  const { nullable, ...rest } = out;
  if (nullable !== true) return rest;
  if (rest.type !== undefined || Array.isArray(rest.enum)) {
    if (typeof rest.type === 'string') rest.type = [rest.type, 'null'];
    else if (Array.isArray(rest.type) && !rest.type.includes('null')) rest.type = [...rest.type, 'null'];
    if (Array.isArray(rest.enum) && !rest.enum.includes(null)) rest.enum = [...rest.enum, null];
    return rest;
  }
  // nullable on a reference or a composition: null beside it
  return { anyOf: [rest, { type: 'null' }] };
}

const SCHEMA_CHILDREN_MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_CHILDREN_ONE = [
  'items',
  'additionalItems',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'if',
  'then',
  'else',
];
const SCHEMA_CHILDREN_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];

function walkSchema(schema: Json, where: string, notes: Notes): Json {
  if (!isObject(schema)) return schema;
  // Children first, so that a tuple's members are rewritten where they stand before becoming prefixItems.
  const withChildren: Record<string, Json> = { ...schema };
  for (const key of SCHEMA_CHILDREN_MAP)
    if (isObject(withChildren[key]))
      withChildren[key] = Object.fromEntries(
        Object.entries(withChildren[key] as Record<string, Json>).map(([k, v]) => [
          k,
          walkSchema(v, `${where}/${key}/${k}`, notes),
        ]),
      );
  for (const key of SCHEMA_CHILDREN_ONE)
    if (isObject(withChildren[key])) withChildren[key] = walkSchema(withChildren[key], `${where}/${key}`, notes);
  for (const key of SCHEMA_CHILDREN_LIST)
    if (Array.isArray(withChildren[key]))
      withChildren[key] = (withChildren[key] as Json[]).map((s, i) => walkSchema(s, `${where}/${key}/${i}`, notes));
  return normalizeSchemaNode(withChildren, (kind) => notes.note(kind, where));
}

const pointerToken = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every place a document holds a schema: components, parameters, bodies, responses. */
function walkDocument(node: Json, parentKey: string, where: string, notes: Notes): Json {
  if (Array.isArray(node)) return node.map((n, i) => walkDocument(n, parentKey, `${where}/${i}`, notes));
  if (!isObject(node)) return node;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(node)) {
    const at = `${where}/${pointerToken(k)}`;
    if (k === 'schema') out[k] = walkSchema(v, at, notes);
    else if (k === 'schemas' && parentKey === 'components' && isObject(v))
      out[k] = Object.fromEntries(
        Object.entries(v).map(([name, s]) => [name, walkSchema(s, `${at}/${pointerToken(name)}`, notes)]),
      );
    else out[k] = walkDocument(v, k, at, notes);
  }
  return out;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** The document with every schema in 2020-12 form, and what that took. */
export function normalizeDocumentWithNotes(doc: OpenApiDocument): {
  doc: OpenApiDocument;
  normalisations: Normalisation[];
} {
  const notes = new Notes();
  const out = walkDocument(structuredClone(doc), '', '#', notes) as OpenApiDocument;
  for (const [p, item] of Object.entries(out.paths ?? {}))
    for (const method of METHODS) {
      const op = (item as Record<string, Record<string, Json> | undefined>)[method];
      if (op && typeof op.operationId !== 'string') notes.note('operation-id', `#/paths/${pointerToken(p)}/${method}`);
    }
  return { doc: out, normalisations: notes.list() };
}

export function normalizeDocument(doc: OpenApiDocument): OpenApiDocument {
  return normalizeDocumentWithNotes(doc).doc;
}
