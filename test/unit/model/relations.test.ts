import { describe, expect, test } from 'vitest';
import { buildModel } from '../../../src/model/model.js';
import { relationGroups } from '../../../src/model/relations.js';
import { referenceDoc } from '../support.js';

const model = buildModel(referenceDoc());

describe('relationGroups', () => {
  const groupOf = relationGroups(model);

  test('joins collections an operation names by a body field or a path parameter, transitively', () => {
    // A flow run's flow_id, deployment_id, work_pool_name; a task run's flow_run_id; a pool's queues by path.
    const runs = groupOf('/flow_runs');
    for (const path of ['/flows', '/deployments', '/task_runs', '/work_pools', '/work_pools/{work_pool_name}/queues'])
      expect(groupOf(path), path).toBe(runs);
    expect(groupOf('/block_schemas')).toBe(groupOf('/block_documents'));
  });

  test('keeps apart collections nothing names across', () => {
    const groups = ['/flow_runs', '/variables', '/saved_searches', '/automations', '/block_documents'].map(groupOf);
    expect(new Set(groups).size).toBe(groups.length);
  });

  test("a group's name is its first path in sorted order, whatever order the joins came in", () => {
    for (const c of model.collections.keys()) {
      const members = [...model.collections.keys()].filter((p) => groupOf(p) === groupOf(c)).sort();
      expect(groupOf(c)).toBe(members[0]);
    }
  });

  test("the profile's deleteReaches joins what no field names (a deployment's concurrency limit)", () => {
    expect(groupOf('/v2/concurrency_limits')).not.toBe(groupOf('/deployments'));
    const joined = relationGroups(model, [['/deployments', '/v2/concurrency_limits']]);
    expect(joined('/v2/concurrency_limits')).toBe(joined('/deployments'));
    expect(joined('/variables')).not.toBe(joined('/deployments'));
  });
});
