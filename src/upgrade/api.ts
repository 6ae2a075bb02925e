/**
 * The server `conformance upgrade` writes to and reads from, as its own OpenAPI document describes it: requests
 * by fetch (a managed server of the suite's own, on this machine: no pacing, no budget), and what its document
 * says of a path and of a response's fields.
 */
import type { OpenApiDocument } from '../openapi/document.js';
import { resolveRef } from '../openapi/operations.js';

type Schema = Record<string, unknown>;

/** One answer: its status and its JSON body (undefined when it has none). */
export interface Answer {
  status: number;
  body: unknown;
}

export class UpgradeApi {
  private constructor(
    readonly baseUrl: string,
    readonly document: OpenApiDocument,
    private readonly authorization: string | undefined,
  ) {}

  /** The server at `baseUrl`, with its document read once. */
  static async at(baseUrl: string, authString?: string): Promise<UpgradeApi> {
    const authorization = authString ? `Basic ${Buffer.from(authString).toString('base64')}` : undefined;
    const res = await fetch(`${baseUrl}/openapi.json`, { headers: authorization ? { authorization } : {} });
    if (!res.ok) throw new Error(`${baseUrl}/openapi.json answered ${res.status}`);
    return new UpgradeApi(baseUrl, (await res.json()) as OpenApiDocument, authorization);
  }

  /** The document has this operation, e.g. `has('POST', '/flows/')`. */
  has(method: string, path: string): boolean {
    const item = (this.document.paths as Record<string, Record<string, unknown>> | undefined)?.[path];
    return Boolean(item?.[method.toLowerCase()]);
  }

  async send(method: string, path: string, json?: unknown): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (json !== undefined) headers['content-type'] = 'application/json';
    if (this.authorization) headers.authorization = this.authorization;
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: json === undefined ? undefined : JSON.stringify(json),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    return { status: res.status, body };
  }

  /** A write that must succeed: its answer's body, or an error naming the request and the answer. */
  async write(method: string, path: string, json?: unknown): Promise<Record<string, unknown>> {
    const answer = await this.send(method, path, json);
    if (answer.status >= 300)
      throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
    return (answer.body ?? {}) as Record<string, unknown>;
  }

  /** The schema of the success answer of `method path` (a path template of the document), if it names one. */
  private responseSchema(method: string, path: string): Schema | undefined {
    const item = (this.document.paths as Record<string, Record<string, Schema>>)?.[path];
    const responses = (item?.[method.toLowerCase()]?.responses ?? {}) as Record<string, Schema>;
    const success = Object.entries(responses).find(([code]) => /^2/.test(code))?.[1];
    const content = (success?.content ?? {}) as Record<string, Schema>;
    return this.resolved(content['application/json']?.schema as Schema | undefined);
  }

  /**
   * Whether the success answer of `GET template` has a field at `at` (`['empirical_policy', 'retry_type']`),
   * by the document: false where an object on the way lists its properties without it, undefined where the
   * document does not say (no schema, an object of any keys).
   */
  documentHas(template: string, at: readonly string[]): boolean | undefined {
    let schema = this.responseSchema('GET', template);
    for (const key of at) {
      const properties = schema?.properties as Record<string, Schema> | undefined;
      if (!properties) return undefined;
      if (!(key in properties)) return false;
      schema = this.objectOf(properties[key]);
    }
    return true;
  }

  /** A property's schema as an object's: followed through `$ref`, and to the member of an anyOf that has properties. */
  private objectOf(schema: Schema | undefined): Schema | undefined {
    const resolved = this.resolved(schema);
    const members = (resolved?.anyOf ?? resolved?.oneOf) as Schema[] | undefined;
    if (!members) return resolved;
    return members.map((m) => this.resolved(m)).find((m) => m?.properties);
  }

  /** A schema with its `$ref`s followed (openapi/operations.ts resolveRef), and a lone allOf/anyOf member. */
  private resolved(schema: Schema | undefined): Schema | undefined {
    for (let depth = 0; schema && depth < 10; depth++) {
      schema = resolveRef<Schema>(this.document, schema);
      const members = (schema.allOf ?? schema.anyOf) as Schema[] | undefined;
      if (members?.length !== 1) return schema;
      schema = members[0];
    }
    return schema;
  }
}
