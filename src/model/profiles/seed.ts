/**
 * The seed spec's own rules, for a target that is not Prefect: no extensions, and every operation that
 * reaches beyond the run's own objects treated as unsafe on a shared target.
 */
import type { Operation } from '../../spec/operations.js';
import type { Profile } from './profile.js';

export const seedProfile: Profile = {
  name: 'seed',
  unknownValue(schema) {
    return (schema as { format?: string }).format === 'uuid' ? '5f0e0c6a-0000-4000-8000-00000000beef' : 'conformance-unknown-0000';
  },
  safety(op: Operation) {
    if (/\/(bulk_\w+|admin)(\/|$)/.test(op.path) && op.method !== 'GET')
      return { generated: false, disposableOnly: true, reason: 'may act beyond the run\'s own objects: unsafe on a shared target' };
    return undefined;
  },
};
