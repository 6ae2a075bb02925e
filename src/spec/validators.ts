/**
 * Compile each schema once with Ajv (2020-12; 3.0 documents were normalised to it on load), with the
 * document's components resolvable by `$ref`.
 */
import { Ajv2020, type ValidateFunction, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OpenApiDocument } from './load.js';
import type { Schema } from './operations.js';

const DOC_ID = 'openapi-document';

function prefixRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(prefixRefs);
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOC_ID}${v}` : prefixRefs(v);
    return out;
  }
  return node;
}

export class SchemaValidators {
  private readonly ajv: Ajv2020;
  private readonly cache = new WeakMap<object, ValidateFunction>();

  constructor(doc: OpenApiDocument) {
    // OpenAPI puts annotation keywords (example, discriminator, xml, x-*) into schemas: not strict.
    this.ajv = new Ajv2020({ strict: false, allErrors: false, logger: false, validateFormats: true, inlineRefs: false });
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema({ $id: DOC_ID, components: doc.components ?? {} });
  }

  compile(schema: Schema): ValidateFunction {
    let fn = this.cache.get(schema);
    if (!fn) {
      fn = this.ajv.compile(prefixRefs(schema) as object);
      this.cache.set(schema, fn);
    }
    return fn;
  }

  /** undefined when valid, else a short description of the first errors. */
  validate(schema: Schema, value: unknown): string | undefined {
    const fn = this.compile(schema);
    if (fn(value)) return undefined;
    return describeErrors(fn.errors ?? []);
  }
}

export function describeErrors(errors: ErrorObject[]): string {
  return errors
    .slice(0, 3)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`)
    .join('; ');
}
