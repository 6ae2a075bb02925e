/** The `orchestration` checks of create_flow_run (spec §4.2): from {}, in the state given, JSON only, 404 for no deployment. */
import type { Obj } from '../../openapi/json.js';
import { UNKNOWN_UUID } from '../../model/profiles/profile.js';
import type { Operation } from '../../openapi/operations.js';
import { is2xx } from '../../openapi/request.js';
import type { CheckContext } from '../core/context.js';
import { fail, pass, statusKey, unexpected, type Verdict } from '../core/verdict.js';
import { readRun, stateType } from './flowRuns.js';

/** create_flow_run with {}: a run of the deployment, read back. */
export async function createFromEmptyBody(op: Operation, ctx: CheckContext): Promise<Verdict> {
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
}

/** create_flow_run with a state: the run is in it. */
export async function createInStateGiven(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const built = await ctx.validRequest(op);
  const plain = await ctx.send({ ...built.request, json: {} }, op);
  const defaultType = ((plain.json as Obj | undefined)?.state as Obj | undefined)?.type;
  const wanted = defaultType === 'PENDING' ? 'SCHEDULED' : 'PENDING';
  const ex = await ctx.send({ ...built.request, json: { state: { type: wanted } } }, op);
  if (!is2xx(ex)) return unexpected(`create_flow_run with state ${wanted}`, ex);
  const read = await readRun(ctx, (ex.json as Obj).id);
  return stateType(read) === wanted
    ? pass(`created in ${wanted} (the default is ${defaultType})`)
    : fail('state.changed', `${wanted} ${stateType(read)}`, `asked for ${wanted}, the run is in ${stateType(read)}`, [
        ex,
        read,
      ]);
}

/** create_flow_run with a text/plain body: a 4xx. */
export async function createRefusesTextPlain(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const built = await ctx.validRequest(op);
  const ex = await ctx.send(
    { ...built.request, json: undefined, raw: '{}', headers: { 'content-type': 'text/plain' } },
    op,
  );
  return ex.status >= 400 && ex.status < 500
    ? pass(`answered ${ex.status}`)
    : fail('input.accepted', statusKey(ex), `a text/plain body answered ${ex.status || ex.error}`, [ex]);
}

/** create_flow_run on a deployment that does not exist: 404. */
export async function createOnUnknownDeployment(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const ex = await ctx.send(
    { method: 'POST', template: op.path, path: op.path.replace(/\{[^}]+\}/, UNKNOWN_UUID), json: {} },
    op,
  );
  return ex.status === 404
    ? pass()
    : fail('status.unexpected', statusKey(ex), `answered ${ex.status || ex.error}`, [ex]);
}
