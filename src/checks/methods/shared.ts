/** What the `methods` checks share: reading one object, naming another by its path, counting a collection, and the lane of a check that runs alone. */
import { namedCollection, type ApiModel, type Collection } from '../../model/model.js';
import { type RelationGroups, relationGroups } from '../../model/relations.js';
import type { Operation } from '../../openapi/operations.js';
import { is2xx, type RequestToSend } from '../../openapi/request.js';
import type { CheckContext } from '../core/context.js';

export const readOf = (c: Collection, path: string): RequestToSend => ({ method: 'GET', template: c.read!.path, path });

/** The object's path with its identifier swapped for another object's. */
export const pathNaming = (request: RequestToSend, id: unknown) =>
  request.path.replace(/[^/]+$/, encodeURIComponent(String(id)));

export async function countOf(ctx: CheckContext, op: Operation): Promise<number | undefined> {
  const c = ctx.model.collectionOf(op);
  if (!c?.count || c.parentParams.length > 0) return undefined;
  const ex = await ctx.send({ method: 'POST', template: c.count.path, path: c.count.path, json: {} });
  return is2xx(ex) && typeof ex.json === 'number' ? ex.json : undefined;
}

const groupsOf = new WeakMap<ApiModel, RelationGroups>();

/**
 * The lane of a check that runs alone on an object of a collection: the collection's group of related ones
 * (model/relations.ts). A DELETE scenario deletes fresh objects nothing names, and a PUT changes its own
 * object: neither changes a collection outside that group, nor sees a change made outside it.
 */
export function relatedGroup(op: Operation, ctx: CheckContext): string | undefined {
  const c = namedCollection(ctx.model, op);
  if (!c) return undefined;
  let groups = groupsOf.get(ctx.model);
  if (!groups) groupsOf.set(ctx.model, (groups = relationGroups(ctx.model, ctx.profile.deleteReaches)));
  return groups(c.path);
}
