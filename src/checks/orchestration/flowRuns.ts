/** What the `orchestration` checks share: flow runs made and read, states set, and the profile's rules asked for. */
import type { Obj } from '../../openapi/json.js';
import type { OrchestrationRules } from '../../model/profiles/profile.js';
import { documentedBody } from '../../cases/documented.js';
import { nonNull } from '../../model/filters.js';
import { jsonBodySchema, jsonSuccessSchema, type Operation, type Schema } from '../../openapi/operations.js';
import { is2xx } from '../../openapi/request.js';
import type { CheckContext, Exchange } from '../core/context.js';
import { once } from '../core/once.js';
import { Skip } from '../core/verdict.js';

const CREATE_FLOW_RUN = /^POST \/deployments\/\{[^}]+\}\/create_flow_run\/?$/;
const SET_STATE = /^POST \/flow_runs\/\{[^}]+\}\/set_state\/?$/;

/** A deployment's `create_flow_run`: the orchestration checks of a run made from a deployment. */
export const isCreateFlowRun = (op: Operation) => CREATE_FLOW_RUN.test(op.key);
/** A flow run's `set_state`: the orchestration checks of its state machine. */
export const isSetState = (op: Operation) => SET_STATE.test(op.key);

function flowRuns(ctx: CheckContext) {
  const c = ctx.model.collections.get('/flow_runs');
  if (!c?.create || !c.read) throw new Skip('the document has no /flow_runs create and read');
  return c;
}

export function readRun(ctx: CheckContext, id: unknown): Promise<Exchange> {
  const read = flowRuns(ctx).read!;
  return ctx.send({ method: 'GET', template: read.path, path: read.path.replace(/\{[^}]+\}/, String(id)) });
}

export const stateType = (run: Exchange) => ((run.json as Obj | undefined)?.state as Obj | undefined)?.type;
export const answerStatus = (ex: Exchange) => (ex.json as Obj | undefined)?.status;

/** A fresh flow run of the run's own flow, in the state given. */
export async function freshRun(ctx: CheckContext, state: Obj): Promise<Obj> {
  const c = flowRuns(ctx);
  const flow = await ctx.object('/flows', 'shared');
  const body = { flow_id: flow.id, tags: [ctx.settings.runTag], state };
  const ex = await ctx.send(
    {
      method: 'POST',
      template: c.create!.path,
      path: c.create!.path,
      json: documentedBody(ctx.model.doc, jsonBodySchema(c.create!), body),
    },
    c.create,
  );
  if (!is2xx(ex))
    throw new Skip(`cannot create a flow run in state ${state.type}: ${ex.status} ${ex.body.slice(0, 200)}`);
  return ex.json as Obj;
}

export function setState(
  ctx: CheckContext,
  op: Operation,
  runId: unknown,
  state: Obj,
  force = false,
  racing = false,
): Promise<Exchange> {
  const path = op.path.replace(/\{[^}]+\}/, String(runId));
  const json = documentedBody(ctx.model.doc, jsonBodySchema(op), { state, force });
  return ctx.send({ method: 'POST', template: op.path, path, json, ...(racing ? { racing } : {}) }, op);
}

/**
 * The word set_state's answer says a move was taken with, where its document lists one (Prefect's `status`:
 * ACCEPT, REJECT, WAIT, ABORT). The spec names none (§4.2: "not detailed"): without it, a move is taken when
 * it is answered 2xx and the run reads back in the new state.
 */
export function acceptedWord(ctx: CheckContext, op: Operation): string | undefined {
  const schema = successSchema(ctx, op);
  const status = schema?.properties?.status;
  const listed = status ? (nonNull(ctx.model.doc, status) as { enum?: unknown[] }).enum : undefined;
  return listed?.includes('ACCEPT') ? 'ACCEPT' : undefined;
}

/** The resolved JSON schema of an operation's first documented success. */
export function successSchema(
  ctx: CheckContext,
  op: Operation,
): (Schema & { properties?: Record<string, Schema>; required?: string[] }) | undefined {
  const schema = jsonSuccessSchema(op);
  return schema ? nonNull(ctx.model.doc, schema) : undefined;
}

export const scheduled = (offsetMs: number) => ({
  type: 'SCHEDULED',
  state_details: { scheduled_time: new Date(Date.now() + offsetMs).toISOString() },
});

/** One legal path SCHEDULED → PENDING → RUNNING → COMPLETED, judged by the checks that look at it. */
export function legalPath(ctx: CheckContext, op: Operation) {
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
export function profileRule(ctx: CheckContext, rule: Exclude<keyof OrchestrationRules, 'source'>): void {
  if (!ctx.profile.orchestration?.[rule]) throw new Skip(`the ${ctx.profile.name} profile documents no such rule`);
}
