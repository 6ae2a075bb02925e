/**
 * Requests for an operation: the valid recipe (minimal body, path parameters pointing at the run's own
 * objects), generated valid variants, and the unknown-id variant.
 */
import fc from 'fast-check';
import type { RequestToSend } from '../openapi/request.js';
import { createsAtOwnPath, type ApiModel, type Reference } from '../model/model.js';
import type { Profile, ProfileFixtures } from '../model/profiles/profile.js';
import { resolveRef, type Operation, type Schema } from '../openapi/operations.js';
import { arbitraryFor, minimalFor, type FieldHooks, type GenContext } from './arbitrary.js';
import type { SafeValues } from './safeValues.js';

/** What the resources stage offers the cases stage: values of the run's own objects. */
export interface FixtureSource extends ProfileFixtures {
  /**
   * The value of `ref.field` of an object of `ref.collection`; `fresh` asks for a new object only this request
   * uses; an `owner` shares its object with that owner's requests alone.
   */
  value(ref: Reference, mode: 'shared' | 'fresh', owner?: string): Promise<unknown>;
}

export interface CaseContext {
  model: ApiModel;
  fixtures: FixtureSource;
  safe: SafeValues;
  profile: Profile;
}

export class CannotBuild extends Error {}

/** The parameters a path filled from `template` holds (fillPath's inverse): none where the two do not match. */
export function paramsOfPath(template: string, path: string): Record<string, string> {
  const [names, values] = [template.split('/'), path.split('/')];
  if (names.length !== values.length) return {};
  const params: Record<string, string> = {};
  names.forEach((segment, i) => {
    const name = /^\{([^}]+)\}$/.exec(segment)?.[1];
    if (name !== undefined) params[name] = decodeURIComponent(values[i]);
  });
  return params;
}

/** A path template with its parameters filled in, each encoded. */
export function fillPath(path: string, params: Record<string, unknown>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
}

export function fieldHooks(
  safe: SafeValues,
  refs: Record<string, unknown>,
  profile: Pick<Profile, 'namesMadeOnDemand' | 'fieldsNeverSent'> = {},
): FieldHooks {
  const { namesMadeOnDemand = [], fieldsNeverSent: neverSent = [] } = profile;
  return {
    minimal(name, schema) {
      if (neverSent.includes(name)) return { value: undefined };
      if (name in refs) return { value: refs[name] };
      if (name === 'tags' && acceptsArray(schema)) return { value: safe.tags() };
      if (safe.isNameField(name) && acceptsString(schema)) return { value: safe.name(schema) };
      return undefined;
    },
    arbitrary(name, schema) {
      if (neverSent.includes(name)) return fc.constant(undefined);
      if (name in refs) return fc.constant(refs[name]);
      if (name === 'tags' && acceptsArray(schema)) return safe.tagsArbitrary();
      if (safe.isNameField(name) && acceptsString(schema)) return safe.nameArbitrary(schema);
      // What the server makes for a name that names nothing yet carries the run's mark, to be found and deleted.
      if (namesMadeOnDemand.includes(name) && acceptsString(schema)) return safe.nameArbitrary(schema);
      return undefined;
    },
  };
}

function acceptsArray(schema: Schema): boolean {
  const s = schema as { type?: unknown; anyOf?: Schema[] };
  return (
    s.type === 'array' || (Array.isArray(s.anyOf) && s.anyOf.some((b) => (b as { type?: unknown }).type === 'array'))
  );
}

function acceptsString(schema: Schema): boolean {
  const s = schema as { type?: unknown; anyOf?: Schema[]; format?: string; enum?: unknown };
  if (s.enum) return false;
  if (s.type === 'string' && !s.format) return true;
  return Array.isArray(s.anyOf) && s.anyOf.some((b) => (b as { type?: unknown }).type === 'string');
}

export interface BuiltRequest {
  request: RequestToSend;
  /** The path parameters used, so that objects created under them can be deleted. */
  pathParams: Record<string, unknown>;
  /** The references of the body resolved to the run's objects (for generated variants). */
  refs: Record<string, unknown>;
}

export async function resolvePathParams(
  ctx: CaseContext,
  op: Operation,
  mode: 'recipe' | 'unknown',
): Promise<Record<string, unknown>> {
  const params: Record<string, unknown> = {};
  const record = ctx.model.recordOf(op);
  // An unknown identifier goes where the operation names its object, or the object its action acts on.
  const named = mode === 'unknown' ? (record.named ?? record.actsOn) : record.named;
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  for (const p of pathParams) {
    const fixed = ctx.profile.pathValue?.(op, p.name) ?? (await ctx.profile.asyncPathValue?.(ctx, op, p.name));
    if (fixed !== undefined) {
      params[p.name] = fixed;
      continue;
    }
    const ref = record.pathRefs[p.name];
    if (mode === 'unknown' && named?.param === p.name) {
      params[p.name] = ctx.profile.unknownValue(p.schema);
      continue;
    }
    // A create at the member's own path (`PUT /variables/{name}`) names the member it makes: a fresh name of the run's.
    if (named?.param === p.name && createsAtOwnPath(record)) {
      params[p.name] = ctx.safe.name(p.schema);
      continue;
    }
    if (ref) {
      // The object the operation changes or removes is its own: shared objects stay as other requests expect
      // them. A read the profile gives an object of its own shares it with its operation's requests alone.
      const mutates = record.mutates.has(p.name);
      const owner = !mutates && ctx.profile.readsOwnObject?.(op) ? op.key : undefined;
      params[p.name] = await ctx.fixtures.value(ref, mutates ? 'fresh' : 'shared', owner);
    } else {
      params[p.name] = minimalFor(p.schema, { doc: ctx.model.doc });
    }
    if (params[p.name] === undefined || params[p.name] === null)
      throw new CannotBuild(`no value for path parameter {${p.name}}`);
  }
  return params;
}

async function resolveQuery(ctx: CaseContext, op: Operation): Promise<Record<string, string | number | boolean>> {
  const query: Record<string, string | number | boolean> = {};
  for (const p of op.parameters.filter((x) => x.in === 'query' && x.required)) {
    const ref = ctx.model.referenceFor(op, p.name, 'body');
    const value = ref ? await ctx.fixtures.value(ref, 'shared') : minimalFor(p.schema, { doc: ctx.model.doc });
    query[p.name] = value as string;
  }
  return query;
}

export async function bodyRefs(
  ctx: CaseContext,
  op: Operation,
  pathParams: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const refs: Record<string, unknown> = {};
  const wanted = ctx.profile.optionalReferences ?? [];
  for (const { field, ref, required } of ctx.model.recordOf(op).bodyRefs) {
    if (!required && !wanted.includes(field)) continue;
    if (field in pathParams) refs[field] = pathParams[field];
    else refs[field] = await ctx.fixtures.value(ref, 'shared');
  }
  return refs;
}

export function genContext(ctx: CaseContext, refs: Record<string, unknown>): GenContext {
  return {
    doc: ctx.model.doc,
    hooks: fieldHooks(ctx.safe, refs, ctx.profile),
    maxDepth: 4,
  };
}

/** The one valid request that should reach 2xx: minimal body, the run's own objects, the profile's additions. */
export async function buildRecipe(ctx: CaseContext, op: Operation): Promise<BuiltRequest> {
  const pathParams = await resolvePathParams(ctx, op, 'recipe');
  const query = await resolveQuery(ctx, op);
  const schema = ctx.model.recordOf(op).bodySchema;
  const refs = schema ? await bodyRefs(ctx, op, pathParams) : {};
  let json: unknown = schema ? minimalFor(schema, genContext(ctx, refs)) : undefined;
  // A body that is a list asks for one item at least: an empty create creates nothing to test.
  const items = schema ? (schemaOf(ctx, schema) as { type?: unknown; items?: Schema }).items : undefined;
  if (Array.isArray(json) && json.length === 0 && items) json = [minimalFor(items, genContext(ctx, refs))];
  const override = ctx.profile.recipe?.[op.key];
  if (override) {
    const extra = await override({ ...ctx, op, pathParams, body: json });
    if (extra.body !== undefined) json = extra.body;
    Object.assign(query, extra.query ?? {});
  }
  if (json === undefined && op.requestBody?.required) json = {};
  json = restrained(ctx, op, json);
  return {
    request: { method: op.method, template: op.path, path: fillPath(op.path, pathParams), query, json },
    pathParams,
    refs,
  };
}

/** Generated valid bodies for the same path: the property "no 5xx, documented status" runs over these. */
export function bodyArbitrary(
  ctx: CaseContext,
  op: Operation,
  refs: Record<string, unknown>,
): fc.Arbitrary<unknown> | undefined {
  const schema = ctx.model.recordOf(op).bodySchema;
  if (!schema) return undefined;
  const bodies = arbitraryFor(schema, genContext(ctx, refs));
  return ctx.profile.restrain ? bodies.map((body) => restrained(ctx, op, body)) : bodies;
}

/** A valid body with what the profile restrains (a value the server would act on by itself) held to its own. */
export const restrained = (ctx: Pick<CaseContext, 'profile' | 'safe'>, op: Operation, body: unknown): unknown =>
  ctx.profile.restrain ? ctx.profile.restrain(op, body, ctx.safe.runTag) : body;

export function withPath(op: Operation, pathParams: Record<string, unknown>): string {
  return fillPath(op.path, pathParams);
}

export function schemaOf(ctx: CaseContext, schema: Schema): Schema {
  return resolveRef<Schema>(ctx.model.doc, schema);
}
