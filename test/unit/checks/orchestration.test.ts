/** Family `orchestration` on a scripted orchestrator: flow runs, their states and history, kept and broken. */
import { describe, expect, test } from 'vitest';
import type { RequestToSend } from '../../../src/openapi/request.js';
import { type Obj, type Reply, fakeContext, judge, outcome } from './fake.js';

/** Flow runs with Prefect's rules: PENDING twice ABORTs, RUNNING before the scheduled time WAITs, force bypasses. */
function orchestrator(breaks?: string) {
  const runs = new Map<string, Obj & { history: Obj[] }>();
  let n = 0;
  let clock = 0;
  const create = (json: Obj, deploymentId?: string): Obj => {
    const id = `run-${++n}`;
    const state = (json.state as Obj | undefined) ?? { type: 'SCHEDULED' };
    const type = breaks === 'ignores-state' ? 'SCHEDULED' : state.type;
    const run = {
      id,
      deployment_id: breaks === 'wrong-deployment' ? 'other' : deploymentId,
      state: { ...state, type },
      state_id: `s${++clock}`,
      history: [{ type, timestamp: clock }],
    };
    runs.set(id, run);
    return run;
  };
  const view = ({ history: _h, ...run }: Obj & { history: Obj[] }) => run;
  return (r: RequestToSend): Reply | undefined => {
    const body = (r.json ?? {}) as Obj;
    const deployment = /^\/deployments\/([^/]+)\/create_flow_run$/.exec(r.path)?.[1];
    if (deployment) {
      if (r.headers?.['content-type'] === 'text/plain' && breaks !== 'content-type')
        return { status: 422, json: { detail: [] } };
      if (deployment.startsWith('5f0e0c6a')) return { status: breaks === 'unknown' ? 201 : 404, json: { detail: 'x' } };
      return { status: 201, json: view(create(body, deployment) as never) };
    }
    if (r.method === 'POST' && r.path === '/flow_runs/') return { status: 201, json: view(create(body) as never) };
    const read = /^\/flow_runs\/([^/]+)$/.exec(r.path)?.[1];
    if (r.method === 'GET' && read)
      return runs.has(read) ? { status: 200, json: view(runs.get(read)!) } : { status: 404, json: {} };
    const target = /^\/flow_runs\/([^/]+)\/set_state$/.exec(r.path)?.[1];
    if (target) {
      const run = runs.get(target)!;
      const to = (body.state as Obj).type as string;
      const from = (run.state as Obj).type;
      const scheduled = Date.parse(String(((run.state as Obj).state_details as Obj | undefined)?.scheduled_time ?? 0));
      let status = 'ACCEPT';
      if (!body.force && from === 'PENDING' && to === 'PENDING' && breaks !== 'pending-twice') status = 'ABORT';
      if (
        !body.force &&
        to === 'RUNNING' &&
        from === 'SCHEDULED' &&
        scheduled > Date.now() &&
        breaks !== 'running-early'
      )
        status = 'WAIT';
      if (body.force && breaks === 'force') status = 'REJECT';
      if (breaks === 'reject-all' && to === 'RUNNING') status = 'REJECT';
      if (status === 'ACCEPT' && breaks !== 'accept-without-change') {
        run.state = { type: to };
        run.state_id = `s${++clock}`;
        run.history.push({ type: to, timestamp: breaks === 'history-order' ? -clock : clock });
      }
      return { status: 201, json: breaks === 'shape' ? { status } : { status, state: run.state, details: {} } };
    }
    if (r.path === '/flow_run_states/')
      return { status: 200, json: runs.get(String(r.query?.flow_run_id))?.history ?? [] };
    if (r.path === '/flow_runs/filter') {
      const f = body.flow_runs as { id: { any_: string[] }; state: { type: { any_: string[] } } };
      const types = breaks === 'filter-ignores-state' ? null : f.state.type.any_;
      return {
        status: 200,
        json: f.id.any_
          .map((id) => runs.get(id)!)
          .filter((run) => !types || types.includes(String((run.state as Obj).type)))
          .map(view as never),
      };
    }
    return undefined;
  };
}

describe('orchestration checks', () => {
  const CREATE = 'POST /deployments/{id}/create_flow_run';
  const SET = 'POST /flow_runs/{id}/set_state';
  test.each([
    ['orchestration.create-flow-run-empty', CREATE, 'wrong-deployment', 'state.changed deployment_id'],
    ['orchestration.create-flow-run-state', CREATE, 'ignores-state', 'state.changed PENDING SCHEDULED'],
    ['orchestration.create-flow-run-content-type', CREATE, 'content-type', 'input.accepted 201'],
    ['orchestration.create-flow-run-unknown', CREATE, 'unknown', 'status.unexpected 201'],
    ['orchestration.set-state-shape', SET, 'shape', 'schema.mismatch PENDING'],
    ['orchestration.set-state-legal-path', SET, 'reject-all', 'status.unexpected RUNNING REJECT'],
    ['orchestration.set-state-legal-path', SET, 'accept-without-change', 'state.changed PENDING'],
    ['orchestration.history-in-order', SET, 'history-order', 'state.changed history'],
    ['orchestration.failed-found-by-filter', SET, 'filter-ignores-state', 'oracle.mismatch COMPLETED'],
    ['orchestration.pending-twice-aborts', SET, 'pending-twice', 'status.unexpected ACCEPT'],
    ['orchestration.pending-race-one-wins', SET, 'pending-twice', 'status.unexpected ACCEPT+ACCEPT'],
    ['orchestration.running-early-waits', SET, 'running-early', 'status.unexpected ACCEPT'],
    ['orchestration.force-bypasses', SET, 'force', 'status.unexpected REJECT'],
  ])('%s on %s: passes, and fails when the server breaks it (%s)', async (id, op, breaks, failure) => {
    expect(outcome(await judge(id, op, await fakeContext({ server: orchestrator() })))).toBe('passed');
    expect(outcome(await judge(id, op, await fakeContext({ server: orchestrator(breaks) })))).toBe(failure);
  });

  test('a rule the profile does not document is not judged', async () => {
    const { prefectProfile } = await import('../../../src/model/profiles/prefect.js');
    const profile = { ...prefectProfile, orchestration: undefined };
    expect(
      outcome(
        await judge('orchestration.pending-twice-aborts', SET, await fakeContext({ profile, server: orchestrator() })),
      ),
    ).toBe('skipped');
  });
});
