/** The operations the auth and versioning families probe: one read per collection. */
import type { ApiModel } from '../../model/model.js';
import type { Operation } from '../../openapi/operations.js';

const samples = new WeakMap<ApiModel, Set<Operation>>();

/** One read per collection: its filter, else the read of one object. */
export function sampledReads(model: ApiModel): Set<Operation> {
  let out = samples.get(model);
  if (!out) {
    out = new Set();
    for (const c of model.collections.values()) {
      const op = c.filter ?? c.read;
      if (op) out.add(op);
    }
    samples.set(model, out);
  }
  return out;
}
