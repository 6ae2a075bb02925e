/** The `orchestration` check of a flow run's views (its graph), kept whole by every kind of task input the document allows. */
import type { Obj } from '../../openapi/json.js';
import { type Operation, resolveRef } from '../../openapi/operations.js';
import { is2xx } from '../../openapi/request.js';
import type { CheckContext } from '../core/context.js';
import { once } from '../core/once.js';
import { fail, pass, skip, Skip, statusKey, unexpected, type Verdict } from '../core/verdict.js';
import { freshRun } from './flowRuns.js';

/** A task run's create body field that names what the task took as inputs, each of a documented kind. */
const TASK_INPUTS = 'task_inputs';

/**
 * The kinds of input a task run may name (`task_inputs`: a map of arrays whose items are one of several
 * schemas, each told by its `input_type` constant), as the document gives them, with each kind's schema.
 */
export function taskInputKinds(ctx: CheckContext): Map<string, Obj> {
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
export function isFlowRunView(op: Operation, ctx: CheckContext): boolean {
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

/** Each view of the run answers as before once a task run took an input of this kind. */
export async function viewsAnyTaskInput(op: Operation, ctx: CheckContext, kind?: string): Promise<Verdict> {
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
}
