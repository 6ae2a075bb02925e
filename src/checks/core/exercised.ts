/** Whether a check that reads its operation's exercise has something to say there. */
import type { Operation } from '../../openapi/operations.js';
import type { CheckContext, Sent } from './context.js';

/**
 * A check's `appliesTo` from the exchanges it looks at: the operation's exercise sent one (or the operation
 * could not be exercised, which the check reports as skipped, with the reason).
 */
export const exercisedWith =
  (looksAt: (sent: Sent) => boolean) =>
  (op: Operation, ctx: CheckContext): boolean => {
    const run = ctx.exchangesOf(op);
    return run.skipped !== undefined || run.sent.some(looksAt);
  };
