/**
 * What the engine's judging keeps of a run between its families' files (engine/judging.ts): a time-boxed run's
 * plan, whether the expected exchanges were written, and the families scheduled ahead or pulled forward. It is
 * the session's own, made with it (engine/session.ts), rather than state a module keeps.
 */
import type { Check, Family } from '../checks/core/check.js';
import type { Verdict } from '../checks/core/verdict.js';
import type { Operation } from '../openapi/operations.js';

/** A verdict, or, for a check the run's budget or deadline did not reach, why it was not run. */
export type Judged = { verdict: Verdict; ms: number } | { notRun: string };

/** A check on an operation (and its variant): one test, one verdict. */
export interface Case {
  check: Check;
  op: Operation;
  variant: string | undefined;
}

/**
 * A budgeted run's plan, made by the first suite file: the cases of every family at once, in the order that
 * reaches the most detection per exchange first (detection.ts). The families that read the exercise
 * (contract, errors) know their cases only once their operations are exercised: the plan places each of
 * their (check, operation) pairs, exercises the operation at the first pair's place, and judges the cases
 * when their file comes.
 */
export interface BudgetPlan {
  /** The judgements of the families that do not read the exercise. */
  judged: Map<Family, Map<Case, Promise<Judged>>>;
  /** The place of each (check, operation) of the families that read the exercise: `check-id OPERATION`. */
  place: Map<string, number>;
  /** The exercises each of those families waits for. */
  exercised: Map<Family, Promise<unknown>>;
}

/** What the engine keeps of a run's families between their files. */
export interface FamiliesState {
  /** The judgements of families scheduled before their file asked (the next family): all their cases. */
  ahead: Map<Family, Map<Case, Promise<Judged>>>;
  /** The judgements of the checks pulled forward (below), by family: a family's cases, or some of them. */
  pulled: Map<Family, Map<Case, Promise<Judged>>>;
  /** The families whose files have asked for their cases. */
  registered: Set<Family>;
  /** The route families the run has met a rate limit on, and pulled work forward for. */
  limitedRoutes: Set<string>;
}

export interface JudgingState {
  plan?: BudgetPlan;
  /** The run's expected exchanges are written (once). */
  expecting: boolean;
  /** Whether a case the run selected reads the exercise (judging.ts: exerciseRead), once asked. */
  exerciseRead?: boolean;
  families: FamiliesState;
}

export const freshJudgingState = (): JudgingState => ({
  expecting: false,
  families: { ahead: new Map(), pulled: new Map(), registered: new Set(), limitedRoutes: new Set() },
});
