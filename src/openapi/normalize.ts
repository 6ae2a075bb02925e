/**
 * OpenAPI 3.0 schemas are a dialect of JSON Schema draft 4 (`nullable`, boolean exclusive bounds).
 * Everything downstream speaks 2020-12, so 3.0 documents are rewritten once, here.
 */
import type { OpenApiDocument } from './document.js';

type Json = unknown;

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Rewrite one 3.0 schema object (not its children) into 2020-12 form. */
export function normalizeSchema30(schema: Record<string, Json>): Record<string, Json> {
  const out: Record<string, Json> = { ...schema };
  if (out.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    if (out.type === undefined && out.$ref === undefined && out.enum === undefined) {
      // nullable on a composition: allow null beside it
      const { nullable: _drop, ...rest } = out;
      return { anyOf: [rest, { type: 'null' }] };
    }
    if (out.$ref !== undefined) {
      const { nullable: _drop, ...rest } = out;
      return { anyOf: [rest, { type: 'null' }] };
    }
  }
  delete out.nullable;
  if (out.exclusiveMaximum === true && typeof out.maximum === 'number') {
    out.exclusiveMaximum = out.maximum;
    delete out.maximum;
  } else if (out.exclusiveMaximum === false) delete out.exclusiveMaximum;
  if (out.exclusiveMinimum === true && typeof out.minimum === 'number') {
    out.exclusiveMinimum = out.minimum;
    delete out.minimum;
  } else if (out.exclusiveMinimum === false) delete out.exclusiveMinimum;
  return out;
}

const SCHEMA_CHILDREN_MAP = ['properties', 'patternProperties', '$defs', 'definitions'];
const SCHEMA_CHILDREN_ONE = [
  'items',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
];
const SCHEMA_CHILDREN_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

function walkSchema(schema: Json): Json {
  if (!isObject(schema)) return schema;
  const out = normalizeSchema30(schema);
  for (const key of SCHEMA_CHILDREN_MAP)
    if (isObject(out[key]))
      out[key] = Object.fromEntries(
        Object.entries(out[key] as Record<string, Json>).map(([k, v]) => [k, walkSchema(v)]),
      );
  for (const key of SCHEMA_CHILDREN_ONE) if (isObject(out[key])) out[key] = walkSchema(out[key]);
  for (const key of SCHEMA_CHILDREN_LIST) if (Array.isArray(out[key])) out[key] = (out[key] as Json[]).map(walkSchema);
  return out;
}

/** Every place a 3.0 document holds a schema: components, parameters, bodies, responses. */
function walkDocument(node: Json, parentKey: string): Json {
  if (Array.isArray(node)) return node.map((n) => walkDocument(n, parentKey));
  if (!isObject(node)) return node;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'schema') out[k] = walkSchema(v);
    else if (k === 'schemas' && parentKey === 'components' && isObject(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, walkSchema(s)]));
    else out[k] = walkDocument(v, k);
  }
  return out;
}

export function normalizeDocument(doc: OpenApiDocument): OpenApiDocument {
  if (doc.openapi.startsWith('3.1')) return doc;
  return walkDocument(structuredClone(doc), '') as OpenApiDocument;
}
