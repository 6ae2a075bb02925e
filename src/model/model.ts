/**
 * The API model, inferred from the document alone: collections (path families), their CRUD, filter and
 * count operations, the identifier of their items, and what each operation needs to exist first.
 */
import type { OpenApiDocument } from '../openapi/document.js';
import { indexOperations, jsonBodySchema, resolveRef, type Operation, type Schema } from '../openapi/operations.js';

export interface Collection {
  /** The path of the collection without a trailing slash, e.g. `/flows` or `/work_pools/{work_pool_name}/queues`. */
  path: string;
  /** The last literal segment, e.g. `flows`, `queues`. */
  name: string;
  /** Path parameters of a parent, e.g. `work_pool_name`. */
  parentParams: string[];
  create?: Operation;
  /** The item path and the name of its identifier parameter (`id`, `name`, `id_or_name`). */
  item?: { path: string; param: string };
  read?: Operation;
  update?: Operation;
  replace?: Operation;
  delete?: Operation;
  filter?: Operation;
  count?: Operation;
  paginate?: Operation;
  /** The response field that holds the identifier used in the item path. */
  idField: string;
}

/** What fills a value that names another object. */
export interface Reference {
  collection: string;
  field: string;
}

/** The path parameter that names an object of the operation's own collection, when it ends the path. */
export interface NamedParam {
  param: string;
  ref: Reference;
  collection: Collection;
}

/**
 * What the model knows of one operation, derived once from the document when the model is built: the later
 * stages (cases, resources, engine, checks) read it rather than derive it again.
 */
export interface OperationRecord {
  op: Operation;
  /** The collection whose path family the operation is in. */
  collection?: Collection;
  /** It only reads: every GET and HEAD, and the POSTs that query (isReadOperation). */
  reads: boolean;
  /** The path parameter that names an object of its own collection, when it ends the path (namedParamOf). */
  named?: NamedParam;
  /**
   * For an operation that names none itself, the path parameter naming the object of its own collection it acts
   * on (`{id}` of `/flow_runs/{id}/resume`, `/flow_runs/{id}/labels`): an unknown one is sent there too.
   */
  actsOn?: NamedParam;
  /** The JSON schema of its request body, when it takes JSON. */
  bodySchema?: Schema;
  /** The object each path parameter that names one refers to. */
  pathRefs: Readonly<Record<string, Reference>>;
  /** The properties of its JSON body that name other objects. */
  bodyRefs: ReadonlyArray<{ field: string; ref: Reference; required: boolean }>;
  /**
   * It may create an object: a POST that neither only reads nor ends its path with an object's name (a
   * collection's create, and actions such as `/deployments/{id}/create_flow_run` or `/flow_runs/{id}/set_state`).
   */
  creates: boolean;
  /**
   * The path parameters naming the object it changes or removes (`DELETE /flows/{id}`, `PATCH
   * /variables/name/{name}`, `POST /flow_runs/{id}/set_state`): that object is the request's own, so that
   * shared objects stay as other requests expect them.
   */
  mutates: ReadonlySet<string>;
}

export interface ApiModel {
  doc: OpenApiDocument;
  operations: Operation[];
  collections: Map<string, Collection>;
  /** The collection an operation belongs to (its path family), if any. */
  collectionOf(op: Operation): Collection | undefined;
  /** The object a path parameter, or a body field, refers to. */
  referenceFor(op: Operation, name: string, where: 'path' | 'body'): Reference | undefined;
  /** Name of the API version header the document declares (e.g. `x-prefect-api-version`), if any. */
  versionHeader?: string;
  /** The operation's record, made when the model was built. */
  recordOf(op: Operation): OperationRecord;
}

function stripSlash(p: string): string {
  return p.length > 1 ? p.replace(/\/+$/, '') : p;
}

const PARAM = /^\{[^}]+\}$/;

function literalName(path: string): string {
  const segs = path.split('/').filter((s) => s && !PARAM.test(s));
  return segs[segs.length - 1] ?? '';
}

/** `flow_run` → `flow_runs`, `work_queue` → `work_queues`, `policy` → `policies`. */
export function plural(word: string): string {
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/.test(word)) return `${word}es`;
  return `${word}s`;
}

export function buildModel(doc: OpenApiDocument): ApiModel {
  const operations = indexOperations(doc);
  const collections = collectionsOf(operations);
  // Collections without an item path still have a family (`/logs/`, `/events`): they get no CRUD.
  const sortedCollections = [...collections.values()].sort((a, b) => b.path.length - a.path.length);
  const collectionOf = (op: Operation): Collection | undefined => {
    const p = stripSlash(op.path);
    return sortedCollections.find((c) => p === c.path || p.startsWith(`${c.path}/`));
  };
  const versionHeader = operations
    .flatMap((op) => op.parameters)
    .find((p) => p.in === 'header' && /api[-_]?version/i.test(p.name))?.name;

  const records = new Map<string, OperationRecord>();
  const model: ApiModel = {
    doc,
    operations,
    collections,
    collectionOf,
    referenceFor: referenceFinder(sortedCollections, collectionOf),
    versionHeader,
    // An operation not of the document (a check's own, a test's) gets its record when asked.
    recordOf: (op) => records.get(op.key) ?? recordOperation(model, op),
  };
  for (const op of operations) records.set(op.key, recordOperation(model, op));
  return model;
}

/** The document's collections by path, each with its item path and the operations on it. */
function collectionsOf(operations: Operation[]): Map<string, Collection> {
  const byKey = new Map(operations.map((op) => [`${op.method} ${stripSlash(op.path)}`, op]));
  const collections = new Map<string, Collection>();
  for (const op of operations) {
    const found = itemPathOf(op);
    if (!found) continue;
    const { base, paramToken, param, collectionName } = found;
    const existing = collections.get(base);
    if (existing?.item && existing.item.param !== param) continue;
    const collection: Collection = existing ?? {
      path: base,
      name: collectionName,
      parentParams: [...base.matchAll(/\{([^}]+)\}/g)].map((x) => x[1]),
      idField: param === 'id_or_name' || param.endsWith('_id') ? 'id' : param.endsWith('_name') ? 'name' : param,
    };
    collection.item = { path: `${base}/${paramToken}`, param };
    collections.set(base, collection);
  }
  // A collection whose members are reached only by a field (`/variables/name/{name}`, made by a create-or-replace
  // PUT there): that lookup is its item path.
  for (const op of operations) {
    const lookup = lookupPathOf(op);
    if (!lookup || collections.has(lookup.base) || !byKey.has(`PUT ${lookup.path}`)) continue;
    collections.set(lookup.base, {
      path: lookup.base,
      name: literalName(lookup.base),
      parentParams: [...lookup.base.matchAll(/\{([^}]+)\}/g)].map((x) => x[1]),
      idField: lookup.field,
      item: { path: lookup.path, param: lookup.param },
    });
  }
  for (const c of collections.values()) {
    const item = stripSlash(c.item!.path);
    c.read = byKey.get(`GET ${item}`);
    c.update = byKey.get(`PATCH ${item}`);
    c.replace = byKey.get(`PUT ${item}`);
    c.delete = byKey.get(`DELETE ${item}`);
    // A collection whose only create is `PUT /collection/:id` (spec §4.1: creates or replaces) has the client
    // name its new member: that PUT is its create.
    c.create = byKey.get(`POST ${c.path}`) ?? byKey.get(`PUT ${c.path}`) ?? c.replace;
    c.filter = byKey.get(`POST ${c.path}/filter`);
    c.count = byKey.get(`POST ${c.path}/count`);
    c.paginate = byKey.get(`POST ${c.path}/paginate`);
  }
  return collections;
}

/** A lookup of a collection's member by one of its fields, `P/<field>/{x}` with P a literal collection path: `op`'s, if it is one. */
function lookupPathOf(op: Operation): { base: string; path: string; field: string; param: string } | undefined {
  const m = stripSlash(op.path).match(/^((?:\/[^/{}]+)+)\/([a-z_]+)\/\{([^}/]+)\}$/);
  if (!m || !['GET', 'DELETE', 'PATCH', 'PUT'].includes(op.method)) return undefined;
  const [, base, field, param] = m;
  // `/variables/name/{name}`: the parameter is the field's value.
  if (param !== field && !param.endsWith(`_${field}`)) return undefined;
  return { base, path: stripSlash(op.path), field, param };
}

/** A collection is a path P with an item path P/{x} that is read, changed or deleted: `op`'s, if it is one. */
function itemPathOf(op: Operation) {
  const m = stripSlash(op.path).match(/^(.*)\/(\{[^}/]+\})$/);
  if (!m || !['GET', 'DELETE', 'PATCH', 'PUT'].includes(op.method)) return undefined;
  const [, base, paramToken] = m;
  if (!base || PARAM.test(base.split('/').pop() ?? '')) return undefined;
  // /flows/name/{name}, /artifacts/{key}/latest: lookups by another key are not the item path.
  const lastLiteral = base.split('/').pop()!;
  const collectionName = literalName(base);
  if (lastLiteral !== collectionName) return undefined;
  const parentLiteral = base
    .split('/')
    .slice(0, -1)
    .filter((s) => s && !PARAM.test(s));
  if (parentLiteral.length > 0 && !base.split('/').some((s) => PARAM.test(s)) && !/^v\d+$/.test(parentLiteral[0]))
    return undefined;
  const param = paramToken.slice(1, -1);
  // `/x/name/{name}`, `/block_types/slug/{slug}/block_documents/name/{block_document_name}`: lookups by a field.
  if (param === lastLiteral || param.endsWith(`_${lastLiteral}`)) return undefined;
  return { base, paramToken, param, collectionName };
}

/** What a path parameter or a body field names: a collection's field (`flow_id` → /flows/ id), or nothing. */
function referenceFinder(
  sortedCollections: Collection[],
  collectionOf: (op: Operation) => Collection | undefined,
): ApiModel['referenceFor'] {
  const byName = new Map<string, Collection>();
  for (const c of sortedCollections)
    if (!byName.has(c.name) || c.path.split('/').length < byName.get(c.name)!.path.split('/').length)
      byName.set(c.name, c);
  const collectionNamed = (stem: string) => byName.get(plural(stem)) ?? byName.get(stem);

  return (op, name, where) => {
    const own = collectionOf(op);
    if (where === 'path' && own) {
      // The item parameter of the operation's own collection, or a parent's.
      for (let c: Collection | undefined = own; c; ) {
        if (
          c.item?.param === name &&
          op.path.includes(`{${name}}`) &&
          stripSlash(op.path).startsWith(c.item.path.replace(/\/$/, ''))
        )
          return { collection: c.path, field: c.idField };
        c = sortedCollections.find((p) => p !== c && c!.path.startsWith(`${p.path}/`));
      }
      if (name === 'id' || name === 'id_or_name') return { collection: own.path, field: 'id' };
    }
    const m = name.match(/^(.*)_(id|name)$/);
    if (m) {
      const target = collectionNamed(m[1]) ?? (own && own.name === plural(m[1]) ? own : undefined);
      if (target) return { collection: target.path, field: m[2] };
      if (where === 'body' && m[1].startsWith('parent_')) {
        const parent = collectionNamed(m[1].slice('parent_'.length));
        if (parent) return { collection: parent.path, field: m[2] };
      }
      return undefined;
    }
    // `/flows/name/{name}`, `/block_types/slug/{slug}`, `/artifacts/{key}/latest`: a field of the own collection.
    if (where === 'path' && own) return { collection: own.path, field: name };
    // `/ui/task_runs/{id}`: outside any collection's family, the segment before `{id}` names the collection.
    if (where === 'path' && name === 'id') {
      const segs = op.path.split('/');
      const before = segs[segs.indexOf('{id}') - 1];
      const target = before ? byName.get(before) : undefined;
      if (target) return { collection: target.path, field: 'id' };
    }
    return undefined;
  };
}

/**
 * POSTs that only read (design.md: filter, count, history, paginate; and by the same naming, counts, a count
 * by something, the next runs, a concurrency status, a validation), and every GET/HEAD. A POST read taken for a
 * write would wait for a write's turn (http/client.ts), be kept from read-only mode, and count as a create.
 */
export function isReadOperation(op: Pick<Operation, 'method' | 'path'>): boolean {
  if (op.method === 'GET' || op.method === 'HEAD') return true;
  return op.method === 'POST' && POST_READ.test(op.path);
}
const POST_READ =
  /\/(filter|count|counts|count-by\/\{[^}]+\}|count-[a-z_-]+|history|paginate|lateness|next|next-runs|concurrency_status|validate)\/?$/;

function recordOperation(model: ApiModel, op: Operation): OperationRecord {
  const collection = model.collectionOf(op);
  const reads = isReadOperation(op);
  const named = namedParamOf(model, op);
  const pathRefs: Record<string, Reference> = {};
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    const ref = model.referenceFor(op, p.name, 'path');
    if (ref) pathRefs[p.name] = ref;
  }
  const actsOn = named || reads ? undefined : actionParamOf(model, op);
  const mutates = new Set<string>();
  if (['DELETE', 'PATCH', 'PUT'].includes(op.method)) {
    if (named) mutates.add(named.param);
  }
  // An action on the object (`/flow_runs/{id}/set_state`, `/deployments/{id}/pause_deployment`) changes it too.
  else if (op.method === 'POST' && actsOn) mutates.add(actsOn.param);
  return {
    op,
    collection,
    reads,
    named,
    actsOn,
    bodySchema: jsonBodySchema(op),
    pathRefs,
    bodyRefs: bodyReferences(model, op),
    creates: op.method === 'POST' && !reads && !named,
    mutates,
  };
}

/**
 * The path parameter that names an object of the operation's own collection, when it ends the path:
 * `{id}` of `/flows/{id}`, `{name}` of `/variables/name/{name}`, `{key}` of `/flow_runs/{id}/input/{key}`.
 */
function namedParamOf(model: ApiModel, op: Operation): NamedParam | undefined {
  const collection = model.collectionOf(op);
  const last = op.path.replace(/\/$/, '').split('/').pop() ?? '';
  if (!collection || !PARAM.test(last)) return undefined;
  const param = last.slice(1, -1);
  const ref = model.referenceFor(op, param, 'path');
  return ref?.collection === collection.path ? { param, ref, collection } : undefined;
}

/** The path parameter of an action on one object of the operation's collection: followed by one literal segment that ends the path. */
function actionParamOf(model: ApiModel, op: Operation): NamedParam | undefined {
  const collection = model.collectionOf(op);
  const segments = op.path.replace(/\/$/, '').split('/');
  const last = segments.at(-1) ?? '';
  const before = segments.at(-2) ?? '';
  if (!collection || PARAM.test(last) || !PARAM.test(before)) return undefined;
  const param = before.slice(1, -1);
  const ref = model.referenceFor(op, param, 'path');
  return ref?.collection === collection.path ? { param, ref, collection } : undefined;
}

/**
 * A create at the new member's own path (`PUT /variables/{name}`, spec §4.1: PUT creates or replaces): the path
 * names what it makes, so no identifier names "no object" there, and a fresh one of the run's goes in it.
 */
export function createsAtOwnPath(record: OperationRecord): boolean {
  return record.named !== undefined && record.collection?.create === record.op;
}

/** The collection of an operation whose path names one of its objects (item or lookup path). */
export function namedCollection(model: ApiModel, op: Operation): Collection | undefined {
  const named = model.recordOf(op).named;
  return named?.collection.item ? named.collection : undefined;
}

/** The properties of an operation's JSON body that name other objects, and whether each is required. */
function bodyReferences(model: ApiModel, op: Operation): Array<{ field: string; ref: Reference; required: boolean }> {
  const schema = jsonBodySchema(op);
  if (!schema) return [];
  const resolved = resolveRef<Schema>(model.doc, schema);
  const props = (resolved.properties as Record<string, Schema> | undefined) ?? {};
  const required = new Set((resolved.required as string[] | undefined) ?? []);
  const out: Array<{ field: string; ref: Reference; required: boolean }> = [];
  for (const field of Object.keys(props)) {
    const ref = model.referenceFor(op, field, 'body');
    if (ref) out.push({ field, ref, required: required.has(field) });
  }
  return out;
}
