/**
 * Which collections a change to one may reach: the document's collections in groups, two collections in one
 * group when an operation of one names an object of the other (a body field such as a flow run's `flow_id`,
 * a path parameter such as the `{work_pool_name}` of a pool's queues), transitively, and when the profile
 * says the server changes one when an object of the other is deleted (`deleteReaches`: Prefect deletes a
 * deployment's concurrency limit with it). A server cascades a DELETE along the fields that name the deleted
 * object, so deleting an object nothing names changes no collection outside its group: the DELETE scenarios
 * of different groups, each on fresh objects, may run side by side (checks/methods/records.ts, engine/scheduler.ts).
 */
import type { ApiModel } from './model.js';

/** The group of each collection, by path: the first of its collections' paths in sorted order. */
export type RelationGroups = (collectionPath: string) => string;

export function relationGroups(
  model: ApiModel,
  deleteReaches: ReadonlyArray<readonly [string, string]> = [],
): RelationGroups {
  const parent = new Map<string, string>();
  const find = (path: string): string => {
    let root = path;
    while (parent.has(root) && parent.get(root) !== root) root = parent.get(root)!;
    return root;
  };
  const join = (a: string, b: string) => {
    if (!model.collections.has(a) || !model.collections.has(b)) return;
    const [ra, rb] = [find(a), find(b)];
    // The root of a group is its first path in sorted order: the group's name does not depend on the join order.
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  };
  for (const path of model.collections.keys()) parent.set(path, path);
  for (const op of model.operations) {
    const own = model.collectionOf(op);
    if (!own) continue;
    const record = model.recordOf(op);
    for (const { ref } of record.bodyRefs) join(own.path, ref.collection);
    for (const ref of Object.values(record.pathRefs)) join(own.path, ref.collection);
  }
  for (const [a, b] of deleteReaches) join(a, b);
  return (collectionPath) => find(collectionPath);
}
