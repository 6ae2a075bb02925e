/**
 * Family `orchestration`: state changes through `create_flow_run` and `set_state` (spec §3, §4.2, §4.3
 * rule 3), the transition rules the target's profile documents, and the views of a flow run that its task
 * runs make (its graph) kept whole by every kind of task input the document allows.
 */
import type { Obj } from '../model/oracle.js';
import { UNKNOWN_UUID, type OrchestrationRules } from '../model/profiles/profile.js';
import { type Operation, resolveRef } from '../openapi/operations.js';
import { is2xx } from '../openapi/request.js';
import { defineCheck } from './check.js';
import type { CheckContext, Exchange } from './context.js';
import { once } from './once.js';
import { fail, pass, skip, Skip, statusKey, unexpected } from './verdict.js';

const CREATE_FLOW_RUN = /^POST \/deployments\/\{[^}]+\}\/create_flow_run\/?$/;
const SET_STATE = /^POST \/flow_runs\/\{[^}]+\}\/set_state\/?$/;

const isCreateFlowRun = (op: Operation) => CREATE_FLOW_RUN.test(op.key);
const isSetState = (op: Operation) => SET_STATE.test(op.key);

function flowRuns(ctx: CheckContext) {
  const c = ctx.model.collections.get('/flow_runs');
  if (!c?.create || !c.read) throw new Skip('the document has no /flow_runs create and read');
  return c;
}

function readRun(ctx: CheckContext, id: unknown): Promise<Exchange> {
  const read = flowRuns(ctx).read!;
  return ctx.send({ method: 'GET', template: read.path, path: read.path.replace(/\{[^}]+\}/, String(id)) });
}

const stateType = (run: Exchange) => ((run.json as Obj | undefined)?.state as Obj | undefined)?.type;
const answerStatus = (ex: Exchange) => (ex.json as Obj | undefined)?.status;

/** A fresh flow run of the run's own flow, in the state given. */
async function freshRun(ctx: CheckContext, state: Obj): Promise<Obj> {
  const c = flowRuns(ctx);
  const flow = await ctx.object('/flows', 'shared');
  const ex = await ctx.send(
    {
      method: 'POST',
      template: c.create!.path,
      path: c.create!.path,
      json: { flow_id: flow.id, tags: [ctx.settings.runTag], state },
    },
    c.create,
  );
  if (!is2xx(ex))
    throw new Skip(`cannot create a flow run in state ${state.type}: ${ex.status} ${ex.body.slice(0, 200)}`);
  return ex.json as Obj;
}

function setState(
  ctx: CheckContext,
  op: Operation,
  runId: unknown,
  state: Obj,
  force = false,
  racing = false,
): Promise<Exchange> {
  const path = op.path.replace(/\{[^}]+\}/, String(runId));
  return ctx.send(
    { method: 'POST', template: op.path, path, json: { state, force }, ...(racing ? { racing } : {}) },
    op,
  );
}

const scheduled = (offsetMs: number) => ({
  type: 'SCHEDULED',
  state_details: { scheduled_time: new Date(Date.now() + offsetMs).toISOString() },
});

/** One legal path SCHEDULED → PENDING → RUNNING → COMPLETED, judged by the checks that look at it. */
function legalPath(ctx: CheckContext, op: Operation) {
  return once(ctx, 'legal path', async () => {
    const run = await freshRun(ctx, scheduled(-60_000));
    const steps: Array<{ to: string; answer: Exchange; read: Exchange }> = [];
    for (const to of ['PENDING', 'RUNNING', 'COMPLETED']) {
      const answer = await setState(ctx, op, run.id, { type: to });
      steps.push({ to, answer, read: await readRun(ctx, run.id) });
    }
    return { steps, runId: run.id };
  });
}

/** The profile's rules, or a skip where the profile documents none of this one. */
function profileRule(ctx: CheckContext, rule: Exclude<keyof OrchestrationRules, 'source'>): void {
  if (!ctx.profile.orchestration?.[rule]) throw new Skip(`the ${ctx.profile.name} profile documents no such rule`);
}

/** A task run's create body field that names what the task took as inputs, each of a documented kind. */
const TASK_INPUTS = 'task_inputs';

/**
 * The kinds of input a task run may name (`task_inputs`: a map of arrays whose items are one of several
 * schemas, each told by its `input_type` constant), as the document gives them, with each kind's schema.
 */
function taskInputKinds(ctx: CheckContext): Map<string, Obj> {
  const kinds = new Map<string, Obj>();
  const create = ctx.model.collections.get('/task_runs')?.create;
  const body = resolveRef<Obj>(ctx.model.doc, create?.requestBody?.content['application/json']);
  const field = resolveRef<Obj>(ctx.model.doc, (body?.properties as Obj | undefined)?.[TASK_INPUTS]);
  const item = resolveRef<Obj>(ctx.model.doc, ((field?.additionalProperties as Obj | undefined)?.items as Obj) ?? {});
  for (const branch of ((item?.anyOf ?? item?.oneOf ?? [item]) as unknown[]).map((b) =>
    resolveRef<Obj>(ctx.model.doc, b),
  )) {
    const inputType = resolveRef<Obj>(ctx.model.doc, (branch?.properties as Obj | undefined)?.input_type);
    const kind = inputType?.const ?? (inputType?.enum as unknown[] | undefined)?.[0] ?? inputType?.default;
    if (typeof kind === 'string') kinds.set(kind, branch);
  }
  return kinds;
}

/** The reads of one flow run below its own path (`/flow_runs/{id}/graph`): views its task runs make. */
function isFlowRunView(op: Operation, ctx: CheckContext): boolean {
  const read = ctx.model.collections.get('/flow_runs')?.read;
  return (
    op.method === 'GET' &&
    read !== undefined &&
    op.path.startsWith(`${read.path}/`) &&
    (op.path.match(/\{[^}]+\}/g) ?? []).length === 1 &&
    taskInputKinds(ctx).size > 0
  );
}

/**
 * An input of one kind, built from its schema: its `input_type`, an id where it names an object (the task
 * run before it in the same flow run, the flow run itself, or an object of the kind's collection), and a
 * name for any other string it requires.
 */
async function inputOfKind(ctx: CheckContext, kind: string, schema: Obj, taskRunId: unknown, runId: unknown) {
  const input: Obj = { input_type: kind };
  const props = (schema.properties ?? {}) as Obj;
  for (const name of (schema.required ?? []) as string[]) {
    if (name in input) continue;
    if (name !== 'id' && (props[name] as Obj | undefined)?.format !== 'uuid') input[name] = 'conformance';
    else if (kind === 'task_run') input[name] = taskRunId;
    else if (kind === 'flow_run') input[name] = runId;
    else input[name] = (await ctx.object(`/${kind}s`, 'shared')).id;
  }
  return input;
}

/**
 * One flow run per kind of task input: a task run in it, every view of the run read, then a second task run
 * that took the first's result, or a flow run's, a parameter, a constant (the kind's), and the views read
 * again. The views of each kind's run are judged by the check on each view.
 */
function taskInputScenario(ctx: CheckContext, kind: string) {
  return once(ctx, `task input ${kind}`, async () => {
    const schema = taskInputKinds(ctx).get(kind);
    const create = ctx.model.collections.get('/task_runs')?.create;
    if (!schema || !create) throw new Skip(`the document offers no ${kind} task input`);
    const views = ctx.model.operations.filter((o) => isFlowRunView(o, ctx));
    const run = await freshRun(ctx, { type: 'RUNNING' });
    const built = await ctx.validRequest(create);
    const taskRun = (n: number, inputs: Obj) => {
      const json = { ...(built.request.json as Obj), flow_run_id: run.id, [TASK_INPUTS]: inputs } as Obj;
      if ('dynamic_key' in json) json.dynamic_key = `${ctx.settings.runTag}-${n}`;
      return ctx.send({ ...built.request, json }, create);
    };
    const readViews = () =>
      Promise.all(
        views.map((v) =>
          ctx.send({ method: 'GET', template: v.path, path: v.path.replace(/\{[^}]+\}/, String(run.id)) }),
        ),
      );
    const upstream = await taskRun(1, {});
    if (!is2xx(upstream))
      return { whatCreated: 'a task run with no inputs', created: upstream, before: [], after: [], views };
    const before = await readViews();
    const input = await inputOfKind(ctx, kind, schema, (upstream.json as Obj | undefined)?.id, run.id);
    const created = await taskRun(2, { x: [input] });
    const after = is2xx(created) ? await readViews() : [];
    return { whatCreated: `a task run with a ${kind} input`, created, before, after, views, input };
  });
}

export const orchestrationChecks = [
  defineCheck({
    id: 'orchestration.create-flow-run-empty',
    exchangesPerCase: 3,
    level: 'MUST',
    clause: '4.2',
    title: 'MUST create a flow run of the deployment from an empty body {}',
    appliesTo: isCreateFlowRun,
    run: async (op, ctx) => {
      const built = await ctx.validRequest(op);
      const ex = await ctx.send({ ...built.request, json: {} }, op);
      if (!is2xx(ex)) return unexpected('create_flow_run with {}', ex);
      const run = ex.json as Obj;
      const deploymentId = built.pathParams[Object.keys(built.pathParams)[0]];
      if (run.deployment_id !== deploymentId)
        return fail(
          'state.changed',
          'deployment_id',
          `the new run's deployment_id is ${run.deployment_id}, not ${deploymentId}`,
          [ex],
        );
      const read = await readRun(ctx, run.id);
      return read.status === 200
        ? pass()
        : fail('status.unexpected', statusKey(read), `the new run cannot be read back: ${read.status}`, [ex, read]);
    },
  }),
  defineCheck({
    id: 'orchestration.create-flow-run-state',
    exchangesPerCase: 4,
    level: 'MUST',
    clause: '4.2',
    catches: 1,
    title: 'MUST create the flow run in the state the body gives',
    appliesTo: isCreateFlowRun,
    run: async (op, ctx) => {
      const built = await ctx.validRequest(op);
      const plain = await ctx.send({ ...built.request, json: {} }, op);
      const defaultType = ((plain.json as Obj | undefined)?.state as Obj | undefined)?.type;
      const wanted = defaultType === 'PENDING' ? 'SCHEDULED' : 'PENDING';
      const ex = await ctx.send({ ...built.request, json: { state: { type: wanted } } }, op);
      if (!is2xx(ex)) return unexpected(`create_flow_run with state ${wanted}`, ex);
      const read = await readRun(ctx, (ex.json as Obj).id);
      return stateType(read) === wanted
        ? pass(`created in ${wanted} (the default is ${defaultType})`)
        : fail(
            'state.changed',
            `${wanted} ${stateType(read)}`,
            `asked for ${wanted}, the run is in ${stateType(read)}`,
            [ex, read],
          );
    },
  }),
  defineCheck({
    id: 'orchestration.create-flow-run-content-type',
    exchangesPerCase: 2,
    level: 'MUST',
    clause: '4.2',
    title: 'MUST refuse create_flow_run without a JSON content type (the spec requires the header)',
    appliesTo: isCreateFlowRun,
    run: async (op, ctx) => {
      const built = await ctx.validRequest(op);
      const ex = await ctx.send(
        { ...built.request, json: undefined, raw: '{}', headers: { 'content-type': 'text/plain' } },
        op,
      );
      return ex.status >= 400 && ex.status < 500
        ? pass(`answered ${ex.status}`)
        : fail('input.accepted', statusKey(ex), `a text/plain body answered ${ex.status || ex.error}`, [ex]);
    },
  }),
  defineCheck({
    id: 'orchestration.create-flow-run-unknown',
    level: 'MUST',
    clause: '4.2',
    title: 'MUST answer 404 to create_flow_run on a deployment that does not exist',
    appliesTo: isCreateFlowRun,
    run: async (op, ctx) => {
      const ex = await ctx.send(
        { method: 'POST', template: op.path, path: op.path.replace(/\{[^}]+\}/, UNKNOWN_UUID), json: {} },
        op,
      );
      return ex.status === 404
        ? pass()
        : fail('status.unexpected', statusKey(ex), `answered ${ex.status || ex.error}`, [ex]);
    },
  }),
  defineCheck({
    id: 'orchestration.set-state-shape',
    exchangesPerCase: 7,
    level: 'MUST',
    clause: '4.2; OpenAPI document',
    title: 'MUST answer set_state with {status, state, details}',
    appliesTo: isSetState,
    run: async (op, ctx) => {
      const { steps } = await legalPath(ctx, op);
      const bad = steps.find(
        (s) => !s.answer.json || !['status', 'state', 'details'].every((k) => k in (s.answer.json as Obj)),
      );
      return bad
        ? fail('schema.mismatch', bad.to, `set_state to ${bad.to} answered without status, state and details`, [
            bad.answer,
          ])
        : pass();
    },
  }),
  defineCheck({
    id: 'orchestration.set-state-legal-path',
    level: 'MUST',
    clause: '3',
    catches: 1,
    title: 'MUST accept SCHEDULED → PENDING → RUNNING → COMPLETED, and the run is in each state after',
    appliesTo: isSetState,
    run: async (op, ctx) => {
      const { steps } = await legalPath(ctx, op);
      for (const s of steps) {
        if (!is2xx(s.answer) || answerStatus(s.answer) !== 'ACCEPT')
          return fail(
            'status.unexpected',
            `${s.to} ${answerStatus(s.answer) ?? statusKey(s.answer)}`,
            `set_state to ${s.to} answered ${s.answer.status} ${JSON.stringify(answerStatus(s.answer))}`,
            [s.answer],
          );
        if (stateType(s.read) !== s.to)
          return fail(
            'state.changed',
            s.to,
            `set_state to ${s.to} was accepted, but the run is in ${stateType(s.read)}`,
            [s.answer, s.read],
          );
      }
      return pass();
    },
  }),
  defineCheck({
    id: 'orchestration.history-in-order',
    level: 'MUST',
    clause: '3',
    title: "MUST record the accepted transitions in order in the run's state history",
    appliesTo: isSetState,
    run: async (op, ctx) => {
      const history = ctx.model.operations.find((o) => o.method === 'GET' && /^\/flow_run_states\/?$/.test(o.path));
      if (!history) return skip('the document has no state history of a flow run');
      const { steps, runId } = await legalPath(ctx, op);
      const ex = await ctx.send({
        method: 'GET',
        template: history.path,
        path: history.path,
        query: { flow_run_id: String(runId) },
      });
      if (!is2xx(ex) || !Array.isArray(ex.json)) return unexpected('the state history', ex);
      const types = (ex.json as Obj[])
        .sort((a, b) => String(a.timestamp).localeCompare(String(b.timestamp)))
        .map((s) => s.type);
      const expected = steps.map((s) => s.to);
      return JSON.stringify(types.slice(-expected.length)) === JSON.stringify(expected)
        ? pass(types.join(' → '))
        : fail(
            'state.changed',
            'history',
            `history is ${types.join(' → ')}; expected it to end ${expected.join(' → ')}`,
            [ex],
            { history: types },
          );
    },
  }),
  defineCheck({
    id: 'orchestration.failed-found-by-filter',
    exchangesPerCase: 6,
    level: 'MUST',
    clause: '4.3 rule 3',
    title: 'MUST find a FAILED run by flow_runs.state.type.any_ [FAILED], and only then',
    appliesTo: isSetState,
    run: async (op, ctx) => {
      const run = await freshRun(ctx, scheduled(-60_000));
      for (const to of ['PENDING', 'RUNNING']) await setState(ctx, op, run.id, { type: to });
      const failed = await setState(ctx, op, run.id, { type: 'FAILED' }, true);
      if (!is2xx(failed)) return unexpected('set_state to FAILED', failed);
      const filter = ctx.model.collections.get('/flow_runs')?.filter;
      if (!filter) return skip('no /flow_runs/filter');
      const ids = async (types: string[]) => {
        const ex = await ctx.send({
          method: 'POST',
          template: filter.path,
          path: filter.path,
          json: { flow_runs: { id: { any_: [run.id] }, state: { type: { any_: types } } } },
        });
        return { ex, ids: Array.isArray(ex.json) ? (ex.json as Obj[]).map((r) => r.id) : [] };
      };
      const [hit, miss] = [await ids(['FAILED']), await ids(['COMPLETED'])];
      if (!hit.ids.includes(run.id))
        return fail('oracle.mismatch', 'FAILED', 'the FAILED run is not found by state.type.any_ [FAILED]', [
          failed,
          hit.ex,
        ]);
      return miss.ids.length === 0
        ? pass()
        : fail('oracle.mismatch', 'COMPLETED', 'the FAILED run is also found by state.type.any_ [COMPLETED]', [
            miss.ex,
          ]);
    },
  }),
  defineCheck({
    id: 'orchestration.pending-twice-aborts',
    exchangesPerCase: 5,
    level: 'MUST',
    clause: 'profile',
    catches: 1,
    title: 'MUST refuse PENDING → PENDING (ABORT) and leave the run as it was',
    appliesTo: isSetState,
    run: async (op, ctx) => {
      profileRule(ctx, 'pendingToPendingAborts');
      const run = await freshRun(ctx, scheduled(-60_000));
      await setState(ctx, op, run.id, { type: 'PENDING' });
      const before = await readRun(ctx, run.id);
      const again = await setState(ctx, op, run.id, { type: 'PENDING' });
      const after = await readRun(ctx, run.id);
      if (answerStatus(again) !== 'ABORT')
        return fail(
          'status.unexpected',
          String(answerStatus(again)),
          `PENDING → PENDING answered ${JSON.stringify(answerStatus(again))}`,
          [again],
        );
      return (before.json as Obj)?.state_id === (after.json as Obj)?.state_id
        ? pass()
        : fail('state.changed', 'state_id', "the ABORTed transition changed the run's state", [again, after]);
    },
  }),
  defineCheck({
    id: 'orchestration.pending-race-one-wins',
    exchangesPerCase: 4,
    level: 'MUST',
    clause: 'profile',
    catches: 1,
    title: 'MUST accept one of two PENDING proposals sent at once on a SCHEDULED run, and ABORT the other',
    appliesTo: isSetState,
    run: async (op, ctx) => {
      profileRule(ctx, 'pendingToPendingAborts');
      const run = await freshRun(ctx, scheduled(-60_000));
      // Two clients (two workers picking up the same run) racing the same transition.
      const answers = await Promise.all([0, 1].map(() => setState(ctx, op, run.id, { type: 'PENDING' }, false, true)));
      const refused = answers.find((a) => !is2xx(a));
      // A proposal the server stayed too busy for (503 through the retries) says nothing of the race.
      if (refused?.status === 503) return skip('the server stayed unavailable (503) for a proposal of the race');
      if (refused) return unexpected('a PENDING proposal raced by another', refused);
      const accepted = answers.filter((a) => answerStatus(a) === 'ACCEPT');
      const after = await readRun(ctx, run.id);
      if (accepted.length === 1 && answers.some((a) => answerStatus(a) === 'ABORT') && stateType(after) === 'PENDING')
        return pass('one ACCEPT, one ABORT');
      const statuses = answers.map((a) => String(answerStatus(a)));
      return fail(
        'status.unexpected',
        [...statuses].sort().join('+'),
        `two PENDING proposals at once answered ${statuses.join(' and ')}; the run is in ${stateType(after)}`,
        [...answers, after],
        { statuses },
      );
    },
  }),
  defineCheck({
    id: 'orchestration.running-early-waits',
    exchangesPerCase: 3,
    level: 'MUST',
    clause: 'profile',
    catches: 1,
    title: 'MUST defer RUNNING before the scheduled time (WAIT) and leave the run as it was',
    appliesTo: isSetState,
    run: async (op, ctx) => {
      profileRule(ctx, 'runningBeforeScheduledWaits');
      const run = await freshRun(ctx, scheduled(3_600_000));
      const answer = await setState(ctx, op, run.id, { type: 'RUNNING' });
      const after = await readRun(ctx, run.id);
      if (answerStatus(answer) !== 'WAIT')
        return fail(
          'status.unexpected',
          String(answerStatus(answer)),
          `RUNNING an hour early answered ${JSON.stringify(answerStatus(answer))}`,
          [answer],
        );
      return stateType(after) === 'SCHEDULED'
        ? pass()
        : fail('state.changed', String(stateType(after)), `after WAIT the run is in ${stateType(after)}`, [
            answer,
            after,
          ]);
    },
  }),
  defineCheck({
    id: 'orchestration.force-bypasses',
    exchangesPerCase: 3,
    level: 'MUST',
    clause: 'profile',
    title: 'MUST accept with force a transition the rules would defer',
    appliesTo: isSetState,
    run: async (op, ctx) => {
      profileRule(ctx, 'forceBypasses');
      const run = await freshRun(ctx, scheduled(3_600_000));
      const answer = await setState(ctx, op, run.id, { type: 'RUNNING' }, true);
      const after = await readRun(ctx, run.id);
      if (answerStatus(answer) !== 'ACCEPT')
        return fail(
          'status.unexpected',
          String(answerStatus(answer)),
          `a forced RUNNING an hour early answered ${JSON.stringify(answerStatus(answer))}`,
          [answer],
        );
      return stateType(after) === 'RUNNING'
        ? pass()
        : fail('state.changed', String(stateType(after)), `after a forced ACCEPT the run is in ${stateType(after)}`, [
            answer,
            after,
          ]);
    },
  }),
  defineCheck({
    id: 'orchestration.views-any-task-input',
    exchangesPerCase: 3,
    level: 'MUST',
    clause: '4.1; OpenAPI document',
    catches: 1,
    title:
      "MUST answer a flow run's views (its graph) as before once a task run of it takes an input of any documented kind",
    appliesTo: isFlowRunView,
    variants: (_op, ctx) => [...taskInputKinds(ctx).keys()].sort(),
    run: async (op, ctx, kind) => {
      const s = await taskInputScenario(ctx, kind!);
      if (!is2xx(s.created)) return unexpected(`the create of ${s.whatCreated}`, s.created);
      const at = s.views.findIndex((v) => v.key === op.key);
      const [before, after] = [s.before[at], s.after[at]];
      if (!is2xx(before)) return skip(`the view answered ${before.status} before the input too: nothing to compare`);
      if (is2xx(after)) return pass(`${before.status} then ${after.status}`);
      return fail(
        after.status >= 500 ? 'server-error' : 'status.unexpected',
        statusKey(after),
        `answered ${after.status || after.error} once a task run of the flow run took a ${kind} input ${JSON.stringify(s.input)} (${before.status} before): ${after.body.slice(0, 200)}`,
        [s.created, before, after],
        { status: after.status, kind },
      );
    },
  }),
];
