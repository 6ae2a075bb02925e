/**
 * A body the target's own document names. What the suite means to send (a corpus object, a fixture) is
 * written once for every target; a strict server refuses a property its document does not name (Pydantic's
 * `extra_forbidden`), a name outside its pattern, an enum value it does not list. So each property the schema
 * does not name is left out, each string is made to fit the schema's pattern and length where a form of it
 * does, and an optional value the schema cannot hold (an enum it does not list) is left out.
 */
import { nonNull } from '../model/filters.js';
import type { OpenApiDocument } from '../openapi/document.js';
import { fitString } from '../openapi/fitString.js';
import type { Schema } from '../openapi/operations.js';

type S = Schema & {
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: unknown[];
  pattern?: string;
  maxLength?: number;
  type?: unknown;
};

/** Left out of its object: the schema cannot hold it. */
const LEFT_OUT = Symbol('left out');

/** `value` as the schema names it; undefined where the whole value cannot be held. */
export function documentedBody(doc: OpenApiDocument, schema: Schema | undefined, value: unknown): unknown {
  if (!schema) return value;
  const fitted = documentedValue(doc, schema, value);
  return fitted === LEFT_OUT ? undefined : fitted;
}

function documentedValue(doc: OpenApiDocument, schema: Schema, value: unknown): unknown {
  const s = nonNull(doc, schema) as S;
  if (value === null || value === undefined) return value;
  if (Array.isArray(value))
    return s.items ? value.map((v) => documentedValue(doc, s.items!, v)).filter((v) => v !== LEFT_OUT) : value;
  if (typeof value === 'object') return fitObject(doc, s, value as Record<string, unknown>);
  if (s.enum && !s.enum.includes(value)) return LEFT_OUT;
  if (typeof value === 'string') return fitString(value, s) ?? LEFT_OUT;
  return value;
}

function fitObject(doc: OpenApiDocument, s: S, value: Record<string, unknown>): unknown {
  // A schema that names no property (a free-form object: parameters, data) holds whatever is sent.
  if (!s.properties) return value;
  const required = new Set(s.required ?? []);
  const extra = s.additionalProperties;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const sub = s.properties[key] ?? (typeof extra === 'object' ? extra : undefined);
    if (!sub) continue;
    const fitted = documentedValue(doc, sub, v);
    if (fitted !== LEFT_OUT) out[key] = fitted;
    else if (required.has(key)) out[key] = v;
  }
  return out;
}
