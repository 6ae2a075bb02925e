/**
 * The seed spec's own rules, for a target that is not Prefect: no extensions, and every operation that
 * reaches beyond the run's own objects treated as unsafe on a shared target.
 */
import type { Operation } from '../../openapi/operations.js';
import { seedOperators } from './operators.js';
import { unknownIdentifier, type Profile } from './profile.js';

export const seedProfile: Profile = {
  name: 'seed',
  unknownValue: unknownIdentifier,
  filterSemantics: { operators: seedOperators },
  safety(op: Operation) {
    if (/\/(bulk_\w+|admin)(\/|$)/.test(op.path) && op.method !== 'GET')
      return {
        generated: false,
        disposableOnly: true,
        reason: "may act beyond the run's own objects: unsafe on a shared target",
      };
    return undefined;
  },
};
