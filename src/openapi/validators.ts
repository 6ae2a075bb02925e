/**
 * Compile each schema once with Ajv (2020-12; 3.0 documents were normalised to it on load), with the
 * document's components resolvable by `$ref`.
 */
import { Ajv2020, type ValidateFunction, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OpenApiDocument } from './document.js';
import type { Operation, Schema } from './operations.js';

const DOC_ID = 'openapi-document';

function prefixRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(prefixRefs);
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node))
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOC_ID}${v}` : prefixRefs(v);
    return out;
  }
  return node;
}

export class SchemaValidators {
  private readonly ajv: Ajv2020;
  private readonly cache = new WeakMap<object, ValidateFunction>();

  constructor(doc: OpenApiDocument) {
    // OpenAPI puts annotation keywords (example, discriminator, xml, x-*) into schemas: not strict.
    this.ajv = new Ajv2020({
      strict: false,
      allErrors: false,
      logger: false,
      validateFormats: true,
      inlineRefs: false,
    });
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    // Not checked against the meta-schema as a whole: one component no normalisation could mend would stop
    // every schema from compiling. Each schema is compiled when first used, and fails alone (uncompilable).
    this.ajv.addSchema({ $id: DOC_ID, components: doc.components ?? {} }, undefined, undefined, false);
  }

  /**
   * Why one of the operation's schemas (its JSON request bodies and responses) cannot be compiled, or
   * undefined: such an operation is skipped with this reason, and the rest of the document is tested.
   */
  uncompilable(op: Operation): string | undefined {
    const schemas = [
      ...Object.values(op.requestBody?.content ?? {}),
      ...Object.values(op.responses).flatMap((r) => Object.values(r.content)),
      ...op.parameters.map((p) => p.schema),
    ];
    for (const schema of schemas) {
      if (!schema) continue;
      try {
        this.compile(schema);
      } catch (e) {
        return `a schema of ${op.key} cannot be compiled as JSON Schema 2020-12: ${(e as Error).message.split('\n')[0]}`;
      }
    }
    return undefined;
  }

  compile(schema: Schema): ValidateFunction {
    let fn = this.cache.get(schema);
    if (!fn) {
      fn = this.ajv.compile(prefixRefs(schema) as object);
      this.cache.set(schema, fn);
    }
    return fn;
  }

  /** undefined when valid, else where the value first fails and a short description of the first errors. */
  validate(schema: Schema, value: unknown): SchemaProblem | undefined {
    const fn = this.compile(schema);
    if (fn(value)) return undefined;
    const errors = fn.errors ?? [];
    const first = errors[0];
    return {
      text: describeErrors(errors),
      // Array indices vary with the data; the place in the schema does not.
      path: (first?.instancePath || '/').replace(/\/\d+(?=\/|$)/g, '/*'),
      keyword: first?.keyword ?? 'unknown',
    };
  }
}

/** Where a value first fails its schema: a stable key for a schema failure, and its description. */
export interface SchemaProblem {
  text: string;
  /** The instance path of the first error, with array indices as `*`. */
  path: string;
  keyword: string;
}

export function describeErrors(errors: ErrorObject[]): string {
  return errors
    .slice(0, 3)
    .map(
      (e) =>
        `${e.instancePath || '/'} ${e.message ?? e.keyword}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
    )
    .join('; ');
}
