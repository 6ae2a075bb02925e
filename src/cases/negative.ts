/**
 * Invalid variants of a valid body. Each is confirmed invalid by Ajv before it is sent, so that a 2xx
 * answer is the server's leniency and never our mistake.
 */
import type { OpenApiDocument } from '../openapi/document.js';
import { resolveRef, type Schema } from '../openapi/operations.js';
import type { SchemaValidators } from '../openapi/validators.js';
import { mergeAllOf } from './arbitrary.js';

export type NegativeKind = 'wrong-type' | 'missing-required' | 'extra-property' | 'out-of-range' | 'malformed-json';

export interface NegativeCase {
  kind: NegativeKind;
  /** What was broken, e.g. `/name: string → object`. */
  detail: string;
  json?: unknown;
  raw?: string;
}

type S = Schema & {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  anyOf?: Schema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
};

/** A value no JSON type coercion turns into the declared type (pydantic turns "1" into 1, not {} into "x"). */
function wrongValueFor(schema: S): unknown {
  const types = Array.isArray(schema.type)
    ? schema.type
    : schema.type
      ? [schema.type]
      : (schema.anyOf ?? []).flatMap((b) => (b as S).type);
  if (types.includes('object')) return 12345;
  return { conformance_wrong_type: true };
}

function outOfRange(schema: S): { value: unknown; detail: string } | undefined {
  if (typeof schema.maximum === 'number') return { value: schema.maximum + 1, detail: `maximum ${schema.maximum}` };
  if (typeof schema.exclusiveMaximum === 'number')
    return { value: schema.exclusiveMaximum, detail: `exclusiveMaximum ${schema.exclusiveMaximum}` };
  if (typeof schema.minimum === 'number') return { value: schema.minimum - 1, detail: `minimum ${schema.minimum}` };
  if (typeof schema.exclusiveMinimum === 'number')
    return { value: schema.exclusiveMinimum, detail: `exclusiveMinimum ${schema.exclusiveMinimum}` };
  if (typeof schema.maxLength === 'number')
    return { value: 'x'.repeat(schema.maxLength + 1), detail: `maxLength ${schema.maxLength}` };
  if (typeof schema.minLength === 'number' && schema.minLength > 0)
    return { value: '', detail: `minLength ${schema.minLength}` };
  if (typeof schema.maxItems === 'number')
    return { value: Array(schema.maxItems + 1).fill(null), detail: `maxItems ${schema.maxItems}` };
  return undefined;
}

/** The non-null branch of `X | null`, which is how FastAPI writes optional fields. */
function nonNull(doc: OpenApiDocument, schema: Schema): S {
  const s = resolveRef<S>(doc, schema);
  if (s.anyOf) {
    const branches = s.anyOf.map((b) => resolveRef<S>(doc, b)).filter((b) => b.type !== 'null');
    if (branches.length === 1) return { ...branches[0] };
  }
  return s;
}

export function negativeCases(
  doc: OpenApiDocument,
  bodySchema: Schema,
  validBody: unknown,
  validators: SchemaValidators,
): NegativeCase[] {
  const out: NegativeCase[] = [];
  const invalid = (json: unknown) => validators.validate(bodySchema, json) !== undefined;
  out.push({ kind: 'malformed-json', detail: 'a body cut in the middle', raw: '{"conformance": "cut' });
  const root = mergeAllOf({ doc }, resolveRef<S>(doc, bodySchema));
  const wholeWrong = Array.isArray(validBody) ? { conformance_wrong_type: true } : [validBody];
  if (invalid(wholeWrong))
    out.push({
      kind: 'wrong-type',
      detail: `the body as ${Array.isArray(wholeWrong) ? 'an array' : 'an object'}`,
      json: wholeWrong,
    });
  if (!validBody || typeof validBody !== 'object' || Array.isArray(validBody)) return out;
  const body = validBody as Record<string, unknown>;
  const props = root.properties ?? {};
  // wrong type of one field: the first required field, else the first declared one
  const field = (root.required ?? [])[0] ?? Object.keys(props)[0];
  if (field && props[field]) {
    const json = { ...body, [field]: wrongValueFor(nonNull(doc, props[field])) };
    if (invalid(json)) out.push({ kind: 'wrong-type', detail: `/${field} of the wrong type`, json });
  }
  const required = (root.required ?? []).find((r) => r in body);
  if (required) {
    const { [required]: _dropped, ...json } = body;
    if (invalid(json)) out.push({ kind: 'missing-required', detail: `required /${required} left out`, json });
  }
  if (root.additionalProperties === false) {
    const json = { ...body, conformance_unexpected_property: 1 };
    if (invalid(json))
      out.push({ kind: 'extra-property', detail: 'an undeclared property where additionalProperties is false', json });
  }
  for (const [name, sub] of Object.entries(props)) {
    const range = outOfRange(nonNull(doc, sub));
    if (!range) continue;
    const json = { ...body, [name]: range.value };
    if (invalid(json)) {
      out.push({ kind: 'out-of-range', detail: `/${name} past its ${range.detail}`, json });
      break;
    }
  }
  return out;
}
