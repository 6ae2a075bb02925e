/**
 * The filter model of a `POST /<collection>/filter`, read off its request body schema (spec §4.3):
 * top-level keys are collection filters (the queried one and related ones), their properties are fields
 * (nested ones too: `state > type`), and keys ending in `_` are operators with their operand schemas.
 * `limit`, `offset` and `sort` come from the same body.
 */
import type { OpenApiDocument } from '../openapi/document.js';
import { jsonBodySchema, resolveRef, type Operation, type Schema } from '../openapi/operations.js';
import type { ApiModel, Collection } from './model.js';

export interface FilterField {
  /** e.g. ['state', 'type'] */
  path: string[];
  /** The document marks the field deprecated (its description, if it gives one). */
  deprecated?: string;
  /** operator → operand schema */
  operators: Record<string, Schema>;
}

export interface CollectionFilter {
  /** The body key: `flows`, `flow_runs`, … */
  key: string;
  fields: FilterField[];
  /** The filter accepts `operator: and_|or_` (a Prefect extension). */
  combinable: boolean;
}

export interface FilterModel {
  op: Operation;
  collection: Collection;
  /** The key of the queried collection in the body (`flows` on /flows/filter), if it has one. */
  ownKey?: string;
  filters: Record<string, CollectionFilter>;
  sort?: { values: string[]; default?: string };
  limit?: { minimum?: number; maximum?: number; default?: number };
  hasOffset: boolean;
}

type S = Schema & {
  properties?: Record<string, Schema>;
  anyOf?: Schema[];
  enum?: string[];
  type?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
};

/** The schema without `| null` (FastAPI writes optional fields as anyOf [X, null]). */
export function nonNull(doc: OpenApiDocument, schema: Schema): S {
  const s = resolveRef<S>(doc, schema);
  if (s.anyOf) {
    const branches = s.anyOf.map((b) => resolveRef<S>(doc, b)).filter((b) => b.type !== 'null');
    if (branches.length === 1) return { ...branches[0], default: s.default ?? branches[0].default };
  }
  return s;
}

function fieldsOf(doc: OpenApiDocument, schema: S, prefix: string[], deprecated?: string): FilterField[] {
  const out: FilterField[] = [];
  const operators: Record<string, Schema> = {};
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    if (name === 'operator') continue;
    if (name.endsWith('_')) operators[name] = sub;
    else {
      const child = nonNull(doc, sub);
      const marked = (sub as { deprecated?: boolean; description?: string }).deprecated
        ? ((sub as { description?: string }).description ?? 'deprecated')
        : deprecated;
      if (child.properties) out.push(...fieldsOf(doc, child, [...prefix, name], marked));
    }
  }
  if (Object.keys(operators).length > 0) out.unshift({ path: prefix, operators, deprecated });
  return out;
}

export function filterModel(model: ApiModel, collection: Collection): FilterModel | undefined {
  const op = collection.filter;
  const body = op ? jsonBodySchema(op) : undefined;
  if (!op || !body) return undefined;
  const root = resolveRef<S>(model.doc, body);
  const filters: Record<string, CollectionFilter> = {};
  let sort: FilterModel['sort'];
  let limit: FilterModel['limit'];
  for (const [key, sub] of Object.entries(root.properties ?? {})) {
    const s = nonNull(model.doc, sub);
    // The default sits beside the $ref (`{$ref: FlowSort, default: NAME_ASC}`), which resolving drops.
    if (key === 'sort')
      sort = s.enum ? { values: s.enum, default: ((sub as S).default ?? s.default) as string | undefined } : undefined;
    else if (key === 'limit')
      limit = { minimum: s.minimum, maximum: s.maximum, default: s.default as number | undefined };
    else if (s.properties)
      filters[key] = { key, fields: fieldsOf(model.doc, s, []), combinable: 'operator' in s.properties };
  }
  const ownKey = collection.name in filters ? collection.name : undefined;
  return { op, collection, ownKey, filters, sort, limit, hasOffset: 'offset' in (root.properties ?? {}) };
}

/**
 * The largest page the suite asks for: the document's maximum of `limit` where it gives one below `wanted`.
 * A server may set its own maximum (spec §8 leaves it open) and refuse a larger one.
 */
export function largestPage(fm: Pick<FilterModel, 'limit'> | undefined, wanted = 200): number {
  const max = fm?.limit?.maximum;
  return typeof max === 'number' && max < wanted ? max : wanted;
}
