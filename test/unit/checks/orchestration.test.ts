/** Family `orchestration` on a scripted orchestrator: flow runs, their states and history, kept and broken. */
import { describe, expect, test } from 'vitest';
import type { RequestToSend } from '../../../src/openapi/request.js';
import { BUILT_IN_CHECKS } from '../../../src/checks/core/registry.js';
import { type Obj, type Reply, applies, fakeContext, judge, operation, outcome } from './fake.js';

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
      history: [{ id: `s${clock}`, type, timestamp: clock }],
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
        run.state_id = `s${++clock}`;
        run.state = { id: run.state_id, type: to };
        if (breaks !== 'history-drops' || to !== 'RUNNING')
          run.history.push({
            id: run.state_id,
            type: to,
            timestamp: breaks === 'history-order' ? 1000 - clock : clock,
          });
        // The server's own service marks the run Late as it goes PENDING, stamped before it (Prefect's late runs).
        if (breaks === 'late-beside' && to === 'PENDING')
          run.history.push({ id: `late-${clock}`, type: 'SCHEDULED', name: 'Late', timestamp: clock + 0.5 });
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
    ['orchestration.history-in-order', SET, 'history-drops', 'state.changed history'],
    ['orchestration.failed-found-by-filter', SET, 'filter-ignores-state', 'oracle.mismatch COMPLETED'],
    ['orchestration.pending-twice-aborts', SET, 'pending-twice', 'status.unexpected ACCEPT'],
    ['orchestration.pending-race-one-wins', SET, 'pending-twice', 'status.unexpected ACCEPT+ACCEPT'],
    ['orchestration.running-early-waits', SET, 'running-early', 'status.unexpected ACCEPT'],
    ['orchestration.force-bypasses', SET, 'force', 'status.unexpected REJECT'],
  ])('%s on %s: passes, and fails when the server breaks it (%s)', async (id, op, breaks, failure) => {
    expect(outcome(await judge(id, op, await fakeContext({ server: orchestrator() })))).toBe('passed');
    expect(outcome(await judge(id, op, await fakeContext({ server: orchestrator(breaks) })))).toBe(failure);
  });

  test("a state between the run's own that the run did not set is the server's own, named and not judged", async () => {
    const verdict = await judge(
      'orchestration.history-in-order',
      SET,
      await fakeContext({ server: orchestrator('late-beside') }),
    );
    expect(verdict).toMatchObject({ status: 'passed' });
    expect((verdict as { message?: string }).message).toMatch(
      /SCHEDULED → PENDING → SCHEDULED → RUNNING → COMPLETED; SCHEDULED \(Late\) among them not the run's/,
    );
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

/**
 * Flow runs whose task runs name their inputs, and a graph of each run: it answers 500 (as Prefect's does
 * for all but a task run's result) once a task run of the run takes an input of a kind in `breaks`, and
 * `refuses` answers 422 to a task run with an input of that kind.
 */
function taskRunServer(options: { breaks?: string[]; refuses?: string; graphBefore?: number } = {}) {
  const runs = orchestrator();
  const taskRuns: Obj[] = [];
  return (r: RequestToSend): Reply | undefined => {
    if (r.method === 'POST' && r.path === '/task_runs/') {
      const inputs = Object.values(((r.json as Obj).task_inputs ?? {}) as Record<string, Obj[]>).flat();
      if (inputs.some((i) => i.input_type === options.refuses)) return { status: 422, json: { detail: [] } };
      const taskRun = { id: `task-run-${taskRuns.length + 1}`, ...(r.json as Obj) };
      taskRuns.push(taskRun);
      return { status: 201, json: taskRun };
    }
    const graph = /^\/flow_runs\/([^/]+)\/graph$/.exec(r.path)?.[1];
    if (r.method === 'GET' && graph) {
      const mine = taskRuns.filter((t) => t.flow_run_id === graph);
      const kinds = mine.flatMap((t) => Object.values((t.task_inputs ?? {}) as Record<string, Obj[]>).flat());
      if (options.graphBefore && !kinds.length) return { status: options.graphBefore, json: {} };
      if (kinds.some((i) => options.breaks?.includes(String(i.input_type))))
        return { status: 500, json: { exception_message: 'Internal Server Error' } };
      return { status: 200, json: mine.map((t) => ({ id: t.id, upstream_dependencies: [] })) };
    }
    return runs(r);
  };
}

describe('orchestration.views-any-task-input', () => {
  const ID = 'orchestration.views-any-task-input';
  const GRAPH = 'GET /flow_runs/{id}/graph';

  test("judges each read below a flow run's own path, once per kind of task input the document gives", async () => {
    const fake = await fakeContext({ server: taskRunServer() });
    const check = BUILT_IN_CHECKS.find((c) => c.id === ID)!;
    expect(check.variants!(operation(fake.ctx.model, GRAPH), fake.ctx)).toEqual([
      'constant',
      'flow_run',
      'parameter',
      'task_run',
    ]);
    expect(applies(ID, GRAPH, fake)).toBe(true);
    expect(applies(ID, 'GET /flow_runs/{id}/graph-v2', fake)).toBe(true);
    expect(applies(ID, 'GET /flow_runs/{id}', fake)).toBe(false);
    expect(applies(ID, 'GET /flow_runs/{id}/input/{key}', fake)).toBe(false);
    expect(applies(ID, 'GET /task_runs/{id}', fake)).toBe(false);
  });

  test('passes on a graph that takes every kind, and fails on the kinds that break it (500)', async () => {
    for (const kind of ['constant', 'flow_run', 'parameter', 'task_run'])
      expect(outcome(await judge(ID, GRAPH, await fakeContext({ server: taskRunServer() }), kind))).toBe('passed');
    const broken = { breaks: ['flow_run', 'constant'] };
    expect(outcome(await judge(ID, GRAPH, await fakeContext({ server: taskRunServer(broken) }), 'constant'))).toBe(
      'server-error 500',
    );
    expect(outcome(await judge(ID, GRAPH, await fakeContext({ server: taskRunServer(broken) }), 'flow_run'))).toBe(
      'server-error 500',
    );
    expect(outcome(await judge(ID, GRAPH, await fakeContext({ server: taskRunServer(broken) }), 'task_run'))).toBe(
      'passed',
    );
  });

  test('the input names the task run before it in the same flow run, or the flow run itself', async () => {
    const fake = await fakeContext({ server: taskRunServer() });
    await judge(ID, GRAPH, fake, 'task_run');
    await judge(ID, GRAPH, fake, 'flow_run');
    const creates = fake.sent.filter((r) => r.method === 'POST' && r.path === '/task_runs/').map((r) => r.json as Obj);
    const [upstream, taking, , takingRun] = creates;
    expect(taking.flow_run_id).toBe(upstream.flow_run_id);
    expect(taking.task_inputs).toEqual({ x: [{ input_type: 'task_run', id: 'task-run-1' }] });
    expect(takingRun.task_inputs).toEqual({ x: [{ input_type: 'flow_run', id: takingRun.flow_run_id }] });
  });

  test('a refused input fails as an unexpected answer; a view that failed before is not judged', async () => {
    const refusing = await fakeContext({ server: taskRunServer({ refuses: 'parameter' }) });
    expect(outcome(await judge(ID, GRAPH, refusing, 'parameter'))).toBe('status.unexpected 422');
    const failingBefore = await fakeContext({ server: taskRunServer({ graphBefore: 404 }) });
    expect(outcome(await judge(ID, GRAPH, failingBefore, 'constant'))).toBe('skipped');
  });
});
