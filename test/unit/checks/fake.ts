/**
 * A CheckContext without a server: the reference document's model and the Prefect profile, a scripted
 * answer for each request a check sends, and hand-built exchanges for what exercising an operation sent.
 * Check judgements are tested on these, one passing and one failing answer per rule.
 */
import type { CheckSettings, CheckContext, OperationRun, Sent } from '../../../src/checks/core/context.js';
import { BUILT_IN_CHECKS } from '../../../src/checks/core/registry.js';
import { Skip, skip, type Verdict } from '../../../src/checks/core/verdict.js';
import type { Exchange } from '../../../src/http/client.js';
import { buildModel, type ApiModel } from '../../../src/model/model.js';
import type { Obj } from '../../../src/openapi/json.js';
import { prefectProfile } from '../../../src/model/profiles/prefect.js';
import type { Profile } from '../../../src/model/profiles/profile.js';
import { loadDocument } from '../../../src/openapi/load.js';
import type { Operation } from '../../../src/openapi/operations.js';
import type { RequestToSend } from '../../../src/openapi/request.js';
import { SchemaValidators } from '../../../src/openapi/validators.js';
import type { BuiltCorpus } from '../../../src/resources/corpus.js';
import { referenceDocPath } from '../support.js';

const loaded = loadDocument(referenceDocPath).then((spec) => ({
  model: buildModel(spec.doc),
  validators: new SchemaValidators(spec.doc),
}));

export async function referenceModel(): Promise<ApiModel> {
  return (await loaded).model;
}

/** What the fake server answers: a status, and JSON (or text with a content type), and headers. */
export interface Reply {
  status: number;
  json?: unknown;
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
  attempts?: number;
  /** Why no answer came, for status 0 (a reset connection unless told). */
  error?: string;
}

let seq = 0;

/** An exchange as the client records it, for a request and a reply. */
export function exchange(request: Partial<RequestToSend> & { method: string; path: string }, reply: Reply): Exchange {
  const body = reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
  const contentType = reply.contentType ?? (reply.json === undefined ? '' : 'application/json');
  let json: unknown;
  let parseError: string | undefined;
  // Parsed from the text, as the client does: a copy, whatever the server does to its objects later.
  if (body) {
    try {
      json = JSON.parse(body);
    } catch (e) {
      parseError = (e as Error).message;
    }
  }
  return {
    seq: ++seq,
    method: request.method,
    template: request.template ?? request.path,
    url: `http://fake.test/api${request.path}`,
    requestHeaders: request.headers ?? {},
    requestBody: request.json === undefined ? request.raw : JSON.stringify(request.json),
    status: reply.status,
    responseHeaders: { ...(contentType ? { 'content-type': contentType } : {}), ...reply.headers },
    contentType,
    body,
    json,
    parseError,
    bodyBytes: body.length,
    truncated: false,
    error: reply.status === 0 ? (reply.error ?? 'ECONNRESET: socket hang up') : undefined,
    ms: 1,
    attempts: reply.attempts ?? 1,
  };
}

export interface FakeOptions {
  /** The answer to each request a check sends; undefined → 404. */
  server?: (request: RequestToSend) => Reply | undefined;
  /** What exercising each operation sent, by operation key. */
  exercised?: Record<string, Array<Omit<Sent, 'exchange'> & { reply: Reply }> | { skipped: string }>;
  corpus?: BuiltCorpus;
  settings?: Partial<CheckSettings>;
  profile?: Profile;
}

export interface Fake {
  ctx: CheckContext;
  /** Every request the checks sent, in order. */
  sent: RequestToSend[];
}

/** A path template with every parameter set to a value derived from its name. */
export const filled = (template: string) => template.replace(/\{([^}]+)\}/g, (_, name: string) => `${name}-1`);

export async function fakeContext(options: FakeOptions = {}): Promise<Fake> {
  const { model, validators } = await loaded;
  const sent: RequestToSend[] = [];
  let objects = 0;
  const runs = new Map<string, OperationRun>();
  for (const [key, list] of Object.entries(options.exercised ?? {})) {
    const op = model.operations.find((o) => o.key === key)!;
    if (!Array.isArray(list)) runs.set(key, { op, sent: [], skipped: list.skipped });
    else
      runs.set(key, {
        op,
        sent: list.map(({ reply, ...s }) => ({
          ...s,
          exchange: exchange({ method: op.method, path: filled(op.path), template: op.path }, reply),
        })),
      });
  }
  const ctx: CheckContext = {
    model,
    profile: options.profile ?? prefectProfile,
    settings: { seed: 1, runs: 5, runTag: 'conformance-test-run', readOnly: false, ...options.settings },
    async validRequest(op) {
      const pathParams = Object.fromEntries(
        [...op.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => [name, `${name}-1`]),
      );
      const json = op.requestBody ? {} : undefined;
      return { request: { method: op.method, template: op.path, path: filled(op.path), json }, pathParams, refs: {} };
    },
    async send(request) {
      sent.push(request);
      return exchange(request, options.server?.(request) ?? { status: 404, json: { detail: 'Not Found' } });
    },
    async object(collectionPath) {
      objects++;
      return { id: `${collectionPath.slice(1)}-object-${objects}`, name: `conformance-test-run-${objects}` };
    },
    async itemPath(collection, obj) {
      return collection.item!.path.replace(/\{[^}]+\}$/, String(obj[collection.idField]));
    },
    exchangesOf(op) {
      const run = runs.get(op.key);
      if (!run) throw new Error(`${op.key} was not exercised in this test`);
      return run;
    },
    validate: (schema, value) => validators.validate(schema, value),
    async corpus() {
      if (!options.corpus) throw new Skip('no corpus in this test');
      return options.corpus;
    },
    noteFilterCoverage() {},
  };
  return { ctx, sent };
}

/** Whether the runner would judge this check on this operation at all (after exercising it). */
export function applies(id: string, opKey: string, fake: Fake): boolean {
  const check = BUILT_IN_CHECKS.find((c) => c.id === id);
  if (!check) throw new Error(`no check ${id}`);
  return check.appliesTo(operation(fake.ctx.model, opKey), fake.ctx);
}

/** Judge one check on one operation, as the runner does (a Skip is a skipped verdict). */
export async function judge(id: string, opKey: string, fake: Fake, variant?: string): Promise<Verdict> {
  const check = BUILT_IN_CHECKS.find((c) => c.id === id);
  if (!check) throw new Error(`no check ${id}`);
  const op = fake.ctx.model.operations.find((o) => o.key === opKey);
  if (!op) throw new Error(`no operation ${opKey} in the reference document`);
  try {
    return await check.run(op, fake.ctx, variant);
  } catch (e) {
    if (e instanceof Skip) return skip(e.message);
    throw e;
  }
}

/** The objects the checks ask the context to make from now on, as "path mode", in order. */
export function objectsMade(fake: Fake): string[] {
  const made: string[] = [];
  const object = fake.ctx.object;
  fake.ctx.object = async (path, mode) => {
    made.push(`${path} ${mode}`);
    return object(path, mode);
  };
  return made;
}

/** Run a check's preparation (checks/core/check.ts: `prepare`) on one operation, as the engine does before the family's judgements. */
export async function prepare(id: string, opKey: string, fake: Fake): Promise<void> {
  const check = BUILT_IN_CHECKS.find((c) => c.id === id);
  if (!check?.prepare) throw new Error(`no check ${id} with a preparation`);
  const op = fake.ctx.model.operations.find((o) => o.key === opKey);
  if (!op) throw new Error(`no operation ${opKey} in the reference document`);
  await check.prepare(op, fake.ctx);
}

/** The first failure's kind and key, or the status when the verdict did not fail. */
export function outcome(verdict: Verdict): string {
  return verdict.status === 'failed' ? `${verdict.failures[0].kind} ${verdict.failures[0].key}` : verdict.status;
}

export function operation(model: ApiModel, key: string): Operation {
  return model.operations.find((o) => o.key === key)!;
}

export type { Obj };
