/** Index the operations of a loaded document, with parameters merged and `$ref`s resolvable. */
import type { OpenApiDocument } from './document.js';

export type Schema = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
}

/** A response the document declares for a status: its content types and their schemas. */
export interface DocumentedResponse {
  /** Content type → schema (undefined when the response declares a type without a schema). */
  content: Record<string, Schema | undefined>;
  /** The headers it declares, by lower-case name: whether each is required, and its schema. */
  headers?: Record<string, { required: boolean; schema?: Schema }>;
}

export interface Operation {
  /** "POST /flows/filter": the key reports, baselines and comparisons use. */
  key: string;
  method: string;
  path: string;
  operationId?: string;
  summary?: string;
  tags: string[];
  parameters: Parameter[];
  requestBody?: { required: boolean; content: Record<string, Schema | undefined> };
  responses: Record<string, DocumentedResponse>;
  deprecated: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** Follow a local `$ref` (`#/components/schemas/X`) to its target; other values come back as they are. */
export function resolveRef<T = Schema>(doc: OpenApiDocument, node: unknown): T {
  let current = node as Record<string, unknown>;
  const seen = new Set<string>();
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    const ref = current.$ref as string;
    if (!ref.startsWith('#/') || seen.has(ref)) break;
    seen.add(ref);
    let target: unknown = doc;
    for (const part of ref.slice(2).split('/'))
      target = (target as Record<string, unknown>)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (target === undefined) break;
    current = target as Record<string, unknown>;
  }
  return current as T;
}

export function indexOperations(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const pathItem = resolveRef<Record<string, unknown>>(doc, item);
    const shared = (pathItem.parameters as unknown[] | undefined) ?? [];
    for (const method of METHODS) {
      const raw = pathItem[method] as Record<string, unknown> | undefined;
      if (!raw) continue;
      const params = new Map<string, Parameter>();
      for (const p of [...shared, ...((raw.parameters as unknown[]) ?? [])]) {
        const param = resolveRef<Record<string, unknown>>(doc, p);
        params.set(`${param.in}:${param.name}`, {
          name: String(param.name),
          in: param.in as Parameter['in'],
          required: param.required === true || param.in === 'path',
          schema: (param.schema as Schema) ?? {},
        });
      }
      let requestBody: Operation['requestBody'];
      if (raw.requestBody) {
        const body = resolveRef<Record<string, unknown>>(doc, raw.requestBody);
        const content: Record<string, Schema | undefined> = {};
        for (const [ct, media] of Object.entries((body.content as Record<string, { schema?: Schema }>) ?? {}))
          content[ct] = media.schema;
        requestBody = { required: body.required === true, content };
      }
      const responses: Record<string, DocumentedResponse> = {};
      for (const [status, r] of Object.entries((raw.responses as Record<string, unknown>) ?? {})) {
        const response = resolveRef<Record<string, unknown>>(doc, r);
        const content: Record<string, Schema | undefined> = {};
        for (const [ct, media] of Object.entries((response.content as Record<string, { schema?: Schema }>) ?? {}))
          content[ct] = media.schema;
        const headers: NonNullable<DocumentedResponse['headers']> = {};
        for (const [name, h] of Object.entries((response.headers as Record<string, unknown>) ?? {})) {
          const header = resolveRef<{ required?: boolean; schema?: Schema }>(doc, h);
          headers[name.toLowerCase()] = { required: header.required === true, schema: header.schema };
        }
        responses[status] = Object.keys(headers).length ? { content, headers } : { content };
      }
      out.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        operationId: raw.operationId as string | undefined,
        summary: raw.summary as string | undefined,
        tags: (raw.tags as string[]) ?? [],
        parameters: [...params.values()],
        requestBody,
        responses,
        deprecated: raw.deprecated === true,
      });
    }
  }
  return out;
}

/** The JSON schema of an operation's request body, if it takes JSON. */
export function jsonBodySchema(op: Operation): Schema | undefined {
  if (!op.requestBody) return undefined;
  const ct = Object.keys(op.requestBody.content).find((c) => /json/i.test(c));
  return ct ? (op.requestBody.content[ct] ?? {}) : undefined;
}

/** The JSON schema of an operation's first documented success, if it documents one. */
export function jsonSuccessSchema(op: Operation): Schema | undefined {
  const status = Object.keys(op.responses).find((s) => s.startsWith('2'));
  return status ? op.responses[status]?.content['application/json'] : undefined;
}

/** The status codes an operation documents, as patterns ("200", "4XX", "default"). */
export function documentsStatus(op: Operation, status: number): boolean {
  const s = String(status);
  return Object.keys(op.responses).some((k) => k === s || (k.length === 3 && /^[1-5]XX$/i.test(k) && k[0] === s[0]));
}

export function responseFor(op: Operation, status: number): DocumentedResponse | undefined {
  const s = String(status);
  return op.responses[s] ?? op.responses[`${s[0]}XX`] ?? op.responses[`${s[0]}xx`] ?? op.responses.default;
}

/** `application/json` and the `+json` types (`application/problem+json`). */
export const isJsonMediaType = (contentType: string): boolean =>
  /^application\/([\w.+-]+\+)?json\b/i.test(contentType.trim());
