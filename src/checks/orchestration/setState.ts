/** The `orchestration` checks of set_state (spec §3, §4.2, §4.3 rule 3): its answer, a legal path, the history, a FAILED run found. */
import type { Obj } from '../../openapi/json.js';
import type { Operation } from '../../openapi/operations.js';
import { is2xx } from '../../openapi/request.js';
import type { CheckContext } from '../core/context.js';
import { fail, pass, skip, statusKey, unexpected, type Verdict } from '../core/verdict.js';
import {
  acceptedWord,
  answerStatus,
  freshRun,
  legalPath,
  scheduled,
  setState,
  stateType,
  successSchema,
} from './flowRuns.js';

/** set_state's answers along the legal path: each a JSON object with every field its document requires (Prefect: status, state, details). */
export async function setStateShape(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const required = successSchema(ctx, op)?.required ?? [];
  const { steps } = await legalPath(ctx, op);
  const bad = steps.find(
    (s) => !s.answer.json || typeof s.answer.json !== 'object' || !required.every((k) => k in (s.answer.json as Obj)),
  );
  const named = required.length ? required.join(', ') : 'a JSON object';
  return bad
    ? fail('schema.mismatch', bad.to, `set_state to ${bad.to} answered without ${named}`, [bad.answer])
    : pass(named);
}

/** SCHEDULED → PENDING → RUNNING → COMPLETED accepted, the run in each state after. */
export async function legalPathAccepted(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const { steps } = await legalPath(ctx, op);
  const accepted = acceptedWord(ctx, op);
  for (const s of steps) {
    if (!is2xx(s.answer) || (accepted !== undefined && answerStatus(s.answer) !== accepted))
      return fail(
        'status.unexpected',
        `${s.to} ${answerStatus(s.answer) ?? statusKey(s.answer)}`,
        `set_state to ${s.to} answered ${s.answer.status} ${JSON.stringify(answerStatus(s.answer))}`,
        [s.answer],
      );
    if (stateType(s.read) !== s.to)
      return fail('state.changed', s.to, `set_state to ${s.to} was accepted, but the run is in ${stateType(s.read)}`, [
        s.answer,
        s.read,
      ]);
  }
  return pass();
}

/** The legal path's transitions in the run's state history, in order. */
export async function historyInOrder(op: Operation, ctx: CheckContext): Promise<Verdict> {
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
  const byTime = [...(ex.json as Obj[])].sort((a, b) => String(a.timestamp).localeCompare(String(b.timestamp)));
  const types = byTime.map((s) => s.type);
  const expected = steps.map((s) => s.to);
  // The run's own states are those set_state answered with, by id. A state between them that the run did not set
  // is another client's or the server's own: Prefect's late-runs service marks a run Late (SCHEDULED) as the run
  // moves on, and its state, stamped when made, sorts between the run's PENDING and RUNNING.
  const ownIds = steps.map((s) => ((s.answer.json as Obj | undefined)?.state as Obj | undefined)?.id);
  const byId = ownIds.every((id) => typeof id === 'string' && id !== '');
  const own = byId ? byTime.filter((s) => ownIds.includes(s.id)) : byTime.slice(-expected.length);
  const first = byTime.indexOf(own[0]);
  const others = byId ? byTime.filter((s, i) => i > first && !ownIds.includes(s.id)) : [];
  const othersNote = others.length
    ? `; ${others.map((s) => `${s.type}${s.name ? ` (${s.name})` : ''}`).join(', ')} among them not the run's, not judged`
    : '';
  return JSON.stringify(own.map((s) => s.type)) === JSON.stringify(expected)
    ? pass(`${types.join(' → ')}${othersNote}`)
    : fail(
        'state.changed',
        'history',
        `history is ${types.join(' → ')}; expected it to end ${expected.join(' → ')}`,
        [ex],
        { history: types },
      );
}

/** A FAILED run found by its state type, and only by it. */
export async function failedFoundByFilter(op: Operation, ctx: CheckContext): Promise<Verdict> {
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
    : fail('oracle.mismatch', 'COMPLETED', 'the FAILED run is also found by state.type.any_ [COMPLETED]', [miss.ex]);
}
