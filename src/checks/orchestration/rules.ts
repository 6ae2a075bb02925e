/** The `orchestration` checks of the transition rules the target's profile documents: each skipped where it documents none. */
import type { Obj } from '../../openapi/json.js';
import type { Operation } from '../../openapi/operations.js';
import { is2xx } from '../../openapi/request.js';
import type { CheckContext, Exchange } from '../core/context.js';
import { fail, pass, skip, unexpected, type Verdict } from '../core/verdict.js';
import { answerStatus, freshRun, profileRule, readRun, scheduled, setState, stateType } from './flowRuns.js';

/** The orchestration's answer where it is not `wanted`: a status.unexpected failure naming it; undefined where it is. */
function otherAnswer(answer: Exchange, wanted: string, what: string): Verdict | undefined {
  const got = answerStatus(answer);
  return got === wanted
    ? undefined
    : fail('status.unexpected', String(got), `${what} answered ${JSON.stringify(got)}`, [answer]);
}

/** PENDING → PENDING aborted, the run as it was. */
export async function pendingTwiceAborts(op: Operation, ctx: CheckContext): Promise<Verdict> {
  profileRule(ctx, 'pendingToPendingAborts');
  const run = await freshRun(ctx, scheduled(-60_000));
  await setState(ctx, op, run.id, { type: 'PENDING' });
  const before = await readRun(ctx, run.id);
  const again = await setState(ctx, op, run.id, { type: 'PENDING' });
  const after = await readRun(ctx, run.id);
  const other = otherAnswer(again, 'ABORT', 'PENDING → PENDING');
  if (other) return other;
  return (before.json as Obj)?.state_id === (after.json as Obj)?.state_id
    ? pass()
    : fail('state.changed', 'state_id', "the ABORTed transition changed the run's state", [again, after]);
}

/** Two PENDING proposals at once: one accepted, the other aborted. */
export async function pendingRaceOneWins(op: Operation, ctx: CheckContext): Promise<Verdict> {
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
}

/** RUNNING before the scheduled time: WAIT, the run as it was. */
export async function runningEarlyWaits(op: Operation, ctx: CheckContext): Promise<Verdict> {
  profileRule(ctx, 'runningBeforeScheduledWaits');
  const run = await freshRun(ctx, scheduled(3_600_000));
  const answer = await setState(ctx, op, run.id, { type: 'RUNNING' });
  const after = await readRun(ctx, run.id);
  const other = otherAnswer(answer, 'WAIT', 'RUNNING an hour early');
  if (other) return other;
  return stateType(after) === 'SCHEDULED'
    ? pass()
    : fail('state.changed', String(stateType(after)), `after WAIT the run is in ${stateType(after)}`, [answer, after]);
}

/** A transition the rules would defer, accepted with force. */
export async function forceBypasses(op: Operation, ctx: CheckContext): Promise<Verdict> {
  profileRule(ctx, 'forceBypasses');
  const run = await freshRun(ctx, scheduled(3_600_000));
  const answer = await setState(ctx, op, run.id, { type: 'RUNNING' }, true);
  const after = await readRun(ctx, run.id);
  const other = otherAnswer(answer, 'ACCEPT', 'a forced RUNNING an hour early');
  if (other) return other;
  return stateType(after) === 'RUNNING'
    ? pass()
    : fail('state.changed', String(stateType(after)), `after a forced ACCEPT the run is in ${stateType(after)}`, [
        answer,
        after,
      ]);
}
