/**
 * The run's own objects: one shared object per collection, created on first use through the document's
 * own create operation (prerequisites first), one per operation for reads the profile gives an object of
 * their own, plus fresh objects for requests that change or delete the object they name. Every object is
 * recorded in the ledger before anyone can use it.
 */
import { buildRecipe, CannotBuild, fillPath, type CaseContext, type FixtureSource } from '../cases/requests.js';
import { is2xx, type Answer, type RequestToSend, type Send } from '../openapi/request.js';
import type { ApiModel, Collection, Reference } from '../model/model.js';
import type { Obj } from '../openapi/json.js';
import type { Operation, Schema } from '../openapi/operations.js';
import { type Ledger, referencesOf } from './ledger.js';

export class FixtureError extends Error {
  constructor(
    message: string,
    readonly answer?: Answer,
  ) {
    super(message);
  }
}

/** A prerequisite of a request could not be had: a fixture the server would not create, or a value no schema gives. */
export const isMissingPrerequisite = (e: unknown): e is Error => e instanceof FixtureError || e instanceof CannotBuild;

/** A fixture the server failed to create for a passing reason (5xx, no answer), worth one more try later. */
export const isTransientFixtureFailure = (e: unknown): e is FixtureError =>
  e instanceof FixtureError && !!e.answer && (e.answer.status === 0 || e.answer.status >= 500);

/** Extra rounds for a fixture create that stays unavailable (each round is the client's 5 attempts). */
const FIXTURE_ROUNDS = 3;

export interface PoolOptions {
  /** Read-only mode: the pool makes nothing. */
  readOnly: boolean;
  /**
   * Makes an object the whole run shares (one per collection): whichever case asks first, the object is no
   * one operation's, and the engine sends its requests as such (the exchange log's `for` left out).
   */
  sharedAcrossOperations?: (make: () => Promise<Obj>) => Promise<Obj>;
}

export class FixturePool implements FixtureSource {
  private readonly shared = new Map<string, Promise<Obj>>();
  private caseContext?: CaseContext;
  readonly created: Array<{ collection: string; id: string }> = [];
  /** Collections whose response schema ($ref) identifies them, for recording objects other operations create. */
  private readonly schemaToCollection = new Map<string, Collection>();

  private readonly readOnly: boolean;
  private readonly sharedAcrossOperations: NonNullable<PoolOptions['sharedAcrossOperations']>;

  constructor(
    private readonly model: ApiModel,
    private readonly sendRequest: Send,
    private readonly ledger: Ledger,
    options: PoolOptions,
  ) {
    this.readOnly = options.readOnly;
    this.sharedAcrossOperations = options.sharedAcrossOperations ?? ((make) => make());
    for (const c of model.collections.values()) {
      const ref = c.read ? responseRef(c.read) : undefined;
      if (ref && !this.schemaToCollection.has(ref)) this.schemaToCollection.set(ref, c);
    }
  }

  attach(ctx: CaseContext): void {
    this.caseContext = ctx;
  }

  send(request: RequestToSend): Promise<Answer> {
    return this.sendRequest(request);
  }

  async value(ref: Reference, mode: 'shared' | 'fresh', owner?: string): Promise<unknown> {
    const obj = await this.object(ref.collection, mode, owner);
    return obj[ref.field];
  }

  /** `owner`: shared by that owner's requests alone (an operation's key), not by the whole run. */
  object(collectionPath: string, mode: 'shared' | 'fresh', owner?: string): Promise<Obj> {
    if (mode === 'fresh') return this.create(collectionPath);
    const key = owner === undefined ? collectionPath : `${collectionPath} for ${owner}`;
    let p = this.shared.get(key);
    if (!p) {
      const made =
        owner === undefined
          ? this.sharedAcrossOperations(() => this.create(collectionPath))
          : this.create(collectionPath);
      // A create that failed is not remembered: the next request that needs the object tries anew.
      made.catch(() => {
        if (this.shared.get(key) === made) this.shared.delete(key);
      });
      p = made;
      this.shared.set(key, p);
    }
    return p;
  }

  private async create(collectionPath: string): Promise<Obj> {
    const c = this.model.collections.get(collectionPath);
    if (!c) throw new FixtureError(`no collection ${collectionPath} in the document`);
    // Read-only mode makes nothing: the cause of every missing fixture, whatever else the collection lacks.
    if (this.readOnly) throw new FixtureError(`read-only mode: cannot create a ${c.name} fixture`);
    const custom = this.caseContext!.profile.fixtures?.[collectionPath];
    if (custom) {
      const made = await custom(this.caseContext!);
      if (made.record) this.recordObject(c, made.obj, made.pathParams ?? {}, `profile fixture ${collectionPath}`);
      return made.obj;
    }
    if (!c.create) throw new FixtureError(`${collectionPath} has no create operation in the document`);
    let built = await buildRecipe(this.caseContext!, c.create);
    let exchange = await this.sendRequest(built.request);
    // A fixture's names are the run's own and fresh, so a conflict is not about them: Prefect on PostgreSQL
    // answers 409 when two first creates race for a row both need (block documents' encryption key). One more
    // try with a fresh recipe after a pause; contract.reaches-2xx still reports the 409 where it is answered.
    if (exchange.status === 409) {
      await new Promise((r) => setTimeout(r, 500));
      built = await buildRecipe(this.caseContext!, c.create);
      exchange = await this.sendRequest(built.request);
    }
    // Everything else stands on fixtures: a create still unavailable (503) after the client's retries
    // is tried again after a pause, a bounded number of times (Prefect on SQLite can stay locked for seconds).
    for (let round = 1; exchange.status === 503 && round <= FIXTURE_ROUNDS; round++) {
      await new Promise((r) => setTimeout(r, 1000 * round));
      exchange = await this.sendRequest(built.request);
    }
    if (!is2xx(exchange))
      throw new FixtureError(
        `creating a ${c.name} fixture through ${c.create.key} answered ${exchange.status || exchange.error}: ${exchange.body.slice(0, 300)}`,
        exchange,
      );
    // A create may answer with a list (of what one request made) or without the key it was given.
    let obj = (Array.isArray(exchange.json) ? exchange.json[0] : exchange.json) as Obj | null;
    const sent = (Array.isArray(built.request.json) ? built.request.json[0] : built.request.json) as Obj | undefined;
    if ((!obj || typeof obj !== 'object' || obj[c.idField] === undefined) && sent?.[c.idField] !== undefined)
      obj = { ...(obj && typeof obj === 'object' ? obj : {}), [c.idField]: sent[c.idField] };
    if (!obj || typeof obj !== 'object' || obj[c.idField] === undefined) {
      throw new FixtureError(
        `creating a ${c.name} fixture through ${c.create.key} returned no "${c.idField}"`,
        exchange,
      );
    }
    this.recordObject(c, obj, built.pathParams, c.create.key);
    return obj;
  }

  private recordObject(c: Collection, obj: Obj, pathParams: Record<string, unknown>, createdBy: string): void {
    const id = obj[c.idField];
    if (id === undefined || id === null) return;
    const params = { ...pathParams, [c.item!.param]: id };
    const deletePath = c.delete ? fillPath(c.item!.path, params) : undefined;
    const refs = referencesOf(obj, String(id), this.caseContext!.safe.runTag);
    this.ledger.record(
      {
        collection: c.path,
        id: String(id),
        deletePath,
        deleteTemplate: c.delete?.key,
        createdBy,
        ...(refs.length ? { refs } : {}),
      },
      // A pool's worker and a deployment's schedule have a DELETE and no GET of their own (Prefect 3.8.8).
      c.read !== undefined && c.read.path === c.delete?.path,
    );
    this.created.push({ collection: c.path, id: String(id) });
  }

  /**
   * An object of the run's renamed through a path that names it by that name (`PATCH
   * /work_pools/{work_pool_name}/queues/{name}` with a new `name`): the ledger records it under the new name as
   * well, or cleanup would find the old name gone and leave the object behind.
   */
  noteRenamed(op: Operation, pathParams: Record<string, unknown>): void {
    const c = this.model.recordOf(op).named?.collection;
    if (c?.item) this.recordObject(c, { [c.idField]: pathParams[c.item.param] } as Obj, pathParams, op.key);
  }

  /** A DELETE that answered 2xx for an object of the ledger: the run deleted it itself (Ledger.recordDeleted). */
  noteDeleted(request: Pick<RequestToSend, 'method' | 'path'>, exchange: Answer): void {
    if (request.method.toUpperCase() === 'DELETE' && is2xx(exchange)) this.ledger.recordDeleted(request.path);
  }

  /**
   * Record what a successful non-read request created: objects of a collection's create, and objects
   * whose schema is a collection's (e.g. the flow run `create_flow_run` returns).
   */
  noteCreated(op: Operation, exchange: Answer, pathParams: Record<string, unknown>, sent?: unknown): void {
    if (!is2xx(exchange) || exchange.json === undefined) return;
    this.noteMadeForNames(op, exchange, sent);
    // A read returns objects that exist already, perhaps someone else's: never the run's to delete.
    if (this.model.recordOf(op).reads) return;
    const own = this.model.collectionOf(op);
    let c: Collection | undefined;
    if (own?.create === op) c = own;
    else if (op.method === 'POST' || op.method === 'PUT') {
      const ref = responseRef(op, exchange.status);
      c = ref ? this.schemaToCollection.get(ref) : undefined;
      if (c && op.method === 'PUT' && c.replace === op) c = undefined;
    }
    if (!c?.item) return;
    const items = Array.isArray(exchange.json) ? exchange.json : [exchange.json];
    for (const item of items) {
      if (!item || typeof item !== 'object') continue;
      // 201 says "created"; a 200 from an upsert may name an object that existed before the run, so it
      // counts only when it carries the run's mark.
      if (exchange.status !== 201 && !this.carriesRunMark(item as Obj)) continue;
      this.recordObject(c, item as Obj, c === own ? pathParams : {}, op.key);
    }
  }

  /**
   * What an operation that makes objects for the names it is given (Profile.madeForNames) listed of those
   * names: each may be one it made, which cleanup reads back (Ledger.recordMaybeMade). Without a Date header
   * there is no telling when it was made, and nothing is noted.
   */
  private noteMadeForNames(
    op: Operation,
    exchange: Answer & { responseHeaders?: Record<string, string> },
    sent: unknown,
  ) {
    const made = this.caseContext?.profile.madeForNames?.[op.key];
    if (!made) return;
    const names = sent && typeof sent === 'object' ? (sent as Obj)[made.namesField] : undefined;
    const answeredAt = Date.parse(exchange.responseHeaders?.date ?? '');
    if (!Array.isArray(names) || !Array.isArray(exchange.json) || Number.isNaN(answeredAt)) return;
    for (const item of exchange.json as Obj[]) {
      if (item?.id === undefined || !names.includes(item.name)) continue;
      const path = made.item.replace(/\{[^}]+\}/, encodeURIComponent(String(item.id)));
      this.ledger.recordMaybeMade({ maybeMadeBy: op.key, path, template: made.item, answeredAt });
    }
  }

  private carriesRunMark(obj: Obj): boolean {
    const tag = this.caseContext!.safe.runTag;
    // A name fitted to a document's pattern (openapi/fitString.ts) may carry the tag lowered, `_` for `-`.
    const marked = (name: string) => name.toLowerCase().replace(/_/g, '-').startsWith(tag);
    const named = ['name', 'key', 'slug', 'tag'].some((f) => typeof obj[f] === 'string' && marked(obj[f] as string));
    return named || (Array.isArray(obj.tags) && obj.tags.includes(tag));
  }
}

/** The `$ref` of an operation's JSON success response (of its items, for an array). */
function responseRef(op: Operation, status?: number): string | undefined {
  const code = status !== undefined ? String(status) : Object.keys(op.responses).find((s) => s.startsWith('2'));
  const resp = code
    ? (op.responses[code] ?? op.responses[Object.keys(op.responses).find((s) => s.startsWith('2')) ?? ''])
    : undefined;
  const schema = resp?.content['application/json'] as
    | (Schema & { $ref?: string; items?: Schema & { $ref?: string } })
    | undefined;
  if (!schema) return undefined;
  return schema.$ref ?? schema.items?.$ref;
}
