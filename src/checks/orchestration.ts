/**
 * Family `orchestration`: state changes through `create_flow_run` and `set_state` (spec §3, §4.2, §4.3
 * rule 3), and the transition rules the target's profile documents.
 */
import type { Obj } from '../model/oracle.js';
import { UNKNOWN_UUID, type OrchestrationRules } from '../model/profiles/profile.js';
import type { Operation } from '../openapi/operations.js';
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
];
