/** The `methods` checks of GET (spec §4.1 rules 1 and 2): repeated alike, changing nothing, taking nothing from a body. */
import { namedCollection } from '../../model/model.js';
import type { Operation } from '../../openapi/operations.js';
import { bodyDifference, volatileBetween, volatileOf } from '../core/bodies.js';
import { differenceThatReturns, pastLoad } from '../core/load.js';
import type { CheckContext, Exchange } from '../core/context.js';
import { fail, pass, skip, type Verdict } from '../core/verdict.js';
import { countOf, readOf } from './shared.js';

/**
 * How many rounds methods.get-repeatable and methods.get-safe ask before a change they saw is the GETs' doing.
 * A server with its services on writes by itself (the scheduler adds runs for deployments with schedules,
 * late-run marking and the foreman change a run's state and a pool's status), and other clients write to a
 * shared one: such a write can fall inside a round's few round trips once. A GET that changes what it reads
 * changes it again in the next round; a change that does not come back was a write beside the GETs.
 */
const REPEAT_ROUNDS = 3;
/** The longest a count is watched with no GET between, against the rounds of GETs that changed it. */
const CONTROL_WINDOW_MAX_MS = 15_000;

/**
 * Asks `round` (its change, or undefined) until a round sees no change, at most REPEAT_ROUNDS times: that
 * round's note names round 1's change as a write beside the GETs; `changed` is round 1's when every round saw one.
 */
async function untilNoChange(
  round: () => Promise<Verdict | undefined>,
): Promise<{ note?: string; changed?: undefined } | { changed: Verdict }> {
  let first: Verdict | undefined;
  for (let n = 1; n <= REPEAT_ROUNDS; n++) {
    const changed = await round();
    if (!changed) {
      if (first?.status !== 'failed') return {};
      return {
        note: `round ${n} saw no change, where round 1 did (${first.failures[0].message}): a write beside the GETs, not theirs`,
      };
    }
    first ??= changed;
  }
  return { changed: first! };
}

/** The same answer twice: status, then body (volatile fields left out). */
function sameAnswer(
  a: Exchange,
  b: Exchange,
  ctx: CheckContext,
  what: string,
  volatile: ReadonlySet<string> = volatileOf(ctx),
): Verdict | undefined {
  if (a.status !== b.status)
    return fail('answer.differs', 'status', `${what}: status ${a.status}, then ${b.status}`, [a, b], {
      statuses: [a.status, b.status],
    });
  const diff = bodyDifference(a.json ?? a.body, b.json ?? b.body, volatile);
  return diff ? fail('answer.differs', diff.key, `${what}: ${diff.text}`, [a, b]) : undefined;
}

/**
 * An answer that is a list, with only the run's own items (those that carry its tag): nothing but another
 * client changes what is not the run's between two identical reads with no write of the run's between them
 * (another run's queues on a shared server, in GET /deployments/{id}/work_queue_check), and an item inserted
 * among them would shift every later one. Any other answer as it is.
 */
function ofTheRun(ex: Exchange, runTag: string): Exchange {
  if (!Array.isArray(ex.json)) return ex;
  return { ...ex, json: ex.json.filter((item) => JSON.stringify(item).includes(runTag)) };
}

/** Three identical GETs, answered alike: a list in its items of the run's own (ofTheRun). */
export async function getRepeatable(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const built = await ctx.validRequest(op);
  let status = 0;
  let othersChanged: string | undefined;
  const rounds = await untilNoChange(async () => {
    // A busy answer among the three says nothing of the GET: the three are sent again (checks/core/load.ts).
    const answers = await pastLoad(async () => {
      const sent: Exchange[] = [];
      for (let i = 0; i < 3; i++) sent.push(await ctx.send(built.request, op));
      return sent;
    }, 'three identical GETs');
    if (typeof answers === 'string') return skip(answers);
    status = answers[0].status;
    const what = 'identical GETs answered differently';
    const [first, ...later] = answers.map((x) => ofTheRun(x, ctx.settings.runTag));
    const differs = later.map((x) => sameAnswer(first, x, ctx, what)).find(Boolean);
    if (!differs && answers.slice(1).some((x) => sameAnswer(answers[0], x, ctx, what)))
      othersChanged = 'items of others in the list changed between identical GETs (another client writes): left out';
    return differs;
  });
  if (rounds.changed) return rounds.changed;
  return pass([`3 GETs answered ${status} alike`, othersChanged, rounds.note].filter(Boolean).join('; '));
}

/** The object and its collection's count, the same before and after five GETs. */
export async function getSafe(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const c = namedCollection(ctx.model, op)!;
  const built = await ctx.validRequest(op);
  const readPath = built.request.path.startsWith(`${c.path}/`) && op === c.read ? built.request.path : undefined;
  const read = () => ctx.send(readPath ? readOf(c, readPath) : built.request);
  // Side by side where order says nothing: nothing that writes runs beside a quiet check, so the reads
  // before all GETs see one state, and the reads after the GETs another (three round trips, not nine).
  const roundsStarted = Date.now();
  const rounds = await untilNoChange(async () => {
    // The reads before and after, with the GETs between, sent again while a read is a busy answer (checks/core/load.ts).
    const round = await pastLoad(async () => {
      const [before, countBefore] = await Promise.all([read(), countOf(ctx, op)]);
      await Promise.all(Array.from({ length: 5 }, () => ctx.send(built.request, op)));
      const [after, countAfter] = await Promise.all([read(), countOf(ctx, op)]);
      return Object.assign([before, after], { countBefore, countAfter });
    }, 'the reads around five GETs');
    if (typeof round === 'string') return skip(round);
    const [before, after] = round;
    const { countBefore, countAfter } = round;
    const diff = bodyDifference(before.json, after.json, volatileOf(ctx));
    if (diff) return fail('state.changed', diff.key, `the object changed after GETs: ${diff.text}`, [before, after]);
    if (countBefore === countAfter) return undefined;
    return fail(
      'state.changed',
      'count',
      `the count of ${c.path} changed from ${countBefore} to ${countAfter} after GETs`,
      [before, after],
      { countBefore, countAfter },
    );
  });
  const first = rounds.changed;
  if (!first) return pass(rounds.note);
  // A count that changed in every round: the GETs' doing, unless it changes as well with no GET between two
  // counts as far apart as the rounds took (a server whose services or other clients add to the collection:
  // another run's creates come in bursts, which a window as short as one round's GETs missed).
  if (first.status === 'failed' && first.failures[0].key === 'count') {
    const roundsMs = Math.min(Date.now() - roundsStarted, CONTROL_WINDOW_MAX_MS);
    const before = await countOf(ctx, op);
    await new Promise((r) => setTimeout(r, roundsMs));
    const after = await countOf(ctx, op);
    if (before !== after)
      return skip(
        `the count of ${c.path} changed in each of ${REPEAT_ROUNDS} rounds of GETs, and from ${before} to ${after} with no GET between two counts: the collection moves by itself, and nothing tells a GET's change from the others'`,
      );
  }
  return first;
}

/**
 * A GET with a body, answered as a GET without one, before or after it. A GET without it after both is the
 * control: a field in which the two GETs without a body differ moves by itself (another client's write, a
 * heartbeat) and is masked, and an answer like the later one (a list another client added to) is not the
 * body's doing; a busy answer sends the three again, and a difference counts where it comes back
 * (checks/core/load.ts).
 */
export async function getIgnoresBody(op: Operation, ctx: CheckContext): Promise<Verdict> {
  const built = await ctx.validRequest(op);
  const withBody = { ...built.request, json: { limit: 0, conformance: 'a GET body must be ignored' } };
  const what = 'the body changed the answer';
  return differenceThatReturns(async () => {
    const answers = await pastLoad(
      async () => [await ctx.send(built.request, op), await ctx.send(withBody, op), await ctx.send(built.request, op)],
      what,
    );
    if (typeof answers === 'string') return skip(answers);
    const [plain, bodied, again] = answers;
    const known = volatileOf(ctx);
    const moving = volatileBetween(plain.json ?? plain.body, again.json ?? again.body, known);
    const masked = [...moving].filter((f) => !known.has(f));
    // Like either GET without a body, it was not the body's doing: a collection another client adds to between
    // the three (a list that grew by one) answers the GET with a body as the one before it or as the one after.
    const differs = sameAnswer(plain, bodied, ctx, what, moving);
    if (differs && sameAnswer(again, bodied, ctx, what, moving)) return differs;
    return pass(
      masked.length
        ? `the same answer, but for ${masked.join(', ')}: changed between two GETs without a body, by someone else`
        : undefined,
    );
  });
}
