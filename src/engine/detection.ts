import type { Check, Family } from '../checks/core/check.js';
import type { CheckRegistry } from '../checks/core/registry.js';

/** What planning needs of a case's check: its declarations (checks/core/check.ts) and what was measured of it. */
type CaseCheck = Pick<Check, 'id' | 'family' | 'exchangesPerCase' | 'catches' | 'reads'>;

/** The exchanges one case of a check sends, as the bench measured them (Check.exchangesPerCase, checks/core/planning.ts). */
const exchangesPerCase = (check: Pick<Check, 'exchangesPerCase'>) => check.exchangesPerCase ?? 1;

/** A family all of whose checks read the document alone (Check.reads): its file sends nothing, and waits for nothing. */
export const familySendsNothing = (family: string, checks: CheckRegistry): boolean =>
  checks.checksOf(family).every((c) => c.reads === 'document');

/**
 * The order of the families' files in a time-boxed run, from what their checks declare: the families that send
 * nothing first (their verdicts come at once), those that read the exercise last (they need every operation
 * exercised first, which is most of a run's requests), and between them the families whose checks catch the
 * most mutants for the exchanges a case of them sends (Check.catches over Check.exchangesPerCase, summed over
 * the family). Unsharded, a time-boxed run plans every family's cases at once (budgetOrder); the order of the
 * files then only orders the report. A shard judges its files in this order.
 */
export function budgetFamilyOrder(registry: CheckRegistry): Family[] {
  const rank = (family: Family) => {
    const checks = registry.checksOf(family);
    const place = familySendsNothing(family, registry) ? 0 : familyReadsExercise(family, registry) ? 2 : 1;
    const caught = checks.reduce((sum, c) => sum + (c.catches ?? 0), 0);
    const cost = checks.reduce((sum, c) => sum + Math.max(0.5, exchangesPerCase(c)), 0);
    return { place, worth: caught / cost };
  };
  const ranks = new Map(registry.families().map((f) => [f, rank(f)]));
  return registry.families().sort((a, b) => {
    const ra = ranks.get(a)!;
    const rb = ranks.get(b)!;
    return ra.place - rb.place || rb.worth - ra.worth;
  });
}

/** Cases of one family, the checks that catch the most first (stable otherwise). */
export function byDetection<T extends { check: Pick<Check, 'catches'> }>(cases: T[]): T[] {
  return cases
    .map((c, i) => ({ c, i, caught: c.check.catches ?? 0 }))
    .sort((a, b) => b.caught - a.caught || a.i - b.i)
    .map(({ c }) => c);
}

/** The exchanges of exercising one operation (a contract-only run: 2,993 for 187 operations), shared by its readers. */
export const EXERCISE_EXCHANGES = 16;

/**
 * What a run is expected to send, for progress to estimate what is left: each case's exchanges (a case of a
 * check that reads the exercise costs it nothing more, one that reads the document alone sends nothing) and
 * the exercise of each operation.
 */
export function expectedExchanges(cases: Array<{ check: CaseCheck }>, exercised: number): number {
  const judging = cases
    .filter((c) => c.check.reads === undefined)
    .reduce((sum, c) => sum + exchangesPerCase(c.check), 0);
  return Math.round(judging + exercised * EXERCISE_EXCHANGES);
}

/**
 * A family some of whose checks read the exercise of their operation (Check.reads): its cases are known, and
 * judged, only once their operations are exercised, and a time-boxed run plans the family so.
 */
export const familyReadsExercise = (family: string, checks: CheckRegistry): boolean =>
  checks.checksOf(family).some((c) => c.reads === 'exercise');

/**
 * A case this long holds one of the scheduler's places for most of a short budget (its exchanges go one after
 * another): it must start at once or it will not finish, while cheaper cases fill the other places.
 */
export const LONG_CASE_EXCHANGES = 100;

/**
 * The order of a budgeted run planned across families: the checks that read the document alone first (they
 * send nothing); then the cases of checks that catch a mutant of the kill matrix (Check.catches): the long
 * ones first, then those on the core collections (spec §2) before the others, each group by what a case is
 * worth per exchange (the check's mutants shared by its cases: a check run on 187 operations is worth less on
 * each than one run on 2); then the rest, the cheapest first. A case that reads the exercise pays its share of exercising its operation
 * (shared by every case that reads it). Stable otherwise.
 */
export function budgetOrder<T extends { check: CaseCheck; op: unknown }>(cases: T[], isCore: (c: T) => boolean): T[] {
  const readers = new Map<unknown, number>();
  const casesOfCheck = new Map<string, number>();
  for (const c of cases) {
    if (c.check.reads === 'exercise') readers.set(c.op, (readers.get(c.op) ?? 0) + 1);
    casesOfCheck.set(c.check.id, (casesOfCheck.get(c.check.id) ?? 0) + 1);
  }
  const costOf = (c: T) =>
    Math.max(0.5, exchangesPerCase(c.check)) +
    (c.check.reads === 'exercise' ? EXERCISE_EXCHANGES / readers.get(c.op)! : 0);
  return cases
    .map((c, i) => {
      const caught = c.check.catches ?? 0;
      const cost = costOf(c);
      const long = caught > 0 && cost >= LONG_CASE_EXCHANGES;
      const worth = caught / casesOfCheck.get(c.check.id)!;
      const key = [
        c.check.reads === 'document' ? 0 : 1,
        caught > 0 ? 0 : 1,
        long ? 0 : 1,
        isCore(c) ? 0 : 1,
        -worth / cost,
        cost,
        i,
      ];
      return { c, key };
    })
    .sort((a, b) => {
      for (let k = 0; k < a.key.length; k++) if (a.key[k] !== b.key[k]) return a.key[k] - b.key[k];
      return 0;
    })
    .map(({ c }) => c);
}
