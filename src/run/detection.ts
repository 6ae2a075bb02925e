import { CHECKS } from '../checks/registry.js';

/**
 * How much each check has been shown to catch: the mutants of the kill matrix (test/mutants/registry.ts)
 * that name it among their killers. A time-boxed run (--budget) judges the checks that catch the most
 * first. test/unit/run/detection.test.ts holds this table to the registry, so that it cannot drift.
 */
export const MUTANTS_CAUGHT: Readonly<Record<string, number>> = {
  'filters.oracle': 10,
  'contract.no-5xx': 7,
  'contract.content-type': 2,
  'contract.success-schema': 2,
  'contract.success-status-documented': 2,
  'contract.unknown-id-404': 2,
  'methods.405': 2,
  'pagination.windows': 2,
  'aggregates.count-agrees': 1,
  'aggregates.history': 1,
  'aggregates.history-invalid-interval': 1,
  'aggregates.paginate-agrees': 1,
  'auth.required': 1,
  'contract.available': 1,
  'contract.error-schema': 1,
  'contract.invalid-malformed-json': 1,
  'contract.invalid-missing-required': 1,
  'contract.invalid-wrong-type': 1,
  'errors.4xx-json': 1,
  'errors.malformed-id': 1,
  'errors.wrong-content-type': 1,
  'filters.seed-example': 1,
  'methods.create-stored': 1,
  'methods.delete-gone-from-views': 1,
  'methods.delete-only-target': 1,
  'methods.delete-twice-404': 1,
  'methods.get-ignores-body': 1,
  'methods.get-safe': 1,
  'methods.patch-partial': 1,
  'methods.put-idempotent': 1,
  'orchestration.create-flow-run-state': 1,
  'orchestration.pending-race-one-wins': 1,
  'orchestration.pending-twice-aborts': 1,
  'orchestration.running-early-waits': 1,
  'orchestration.set-state-legal-path': 1,
  'pagination.limit-zero': 1,
  'sorting.by-value': 1,
  'spec.get-without-body': 1,
  'versioning.malformed-refused': 1,
};

/**
 * The order of families in a time-boxed run: those that catch the most for the time they take first. The
 * time is what each family takes in a default run (bench.json → requestsByFamily); contract and errors come last as
 * they need every operation exercised first, which is most of a run's requests.
 */
export const BUDGET_FAMILY_ORDER = [
  'spec',
  'auth',
  'orchestration',
  'pagination',
  'aggregates',
  'sorting',
  'filters',
  'versioning',
  'methods',
  'contract',
  'errors',
] as const;

/** Cases of one family, the checks that catch the most first (stable otherwise). */
export function byDetection<T extends { check: { id: string } }>(cases: T[]): T[] {
  return cases
    .map((c, i) => ({ c, i, caught: MUTANTS_CAUGHT[c.check.id] ?? 0 }))
    .sort((a, b) => b.caught - a.caught || a.i - b.i)
    .map(({ c }) => c);
}

/** What planning needs of a case's check. */
type CaseCheck = { id: string; family: string; exchangesPerCase?: number };

/** The exchanges one case of a check sends, as the check declares them (Check.exchangesPerCase). */
const exchangesPerCase = (check: CaseCheck) => check.exchangesPerCase ?? 1;

/** The exchanges of exercising one operation (a contract-only run: 2,993 for 187 operations), shared by its readers. */
export const EXERCISE_EXCHANGES = 16;

/**
 * What a run is expected to send, for progress to estimate what is left: each case's exchanges (a case of a
 * family that reads the exercise costs it nothing more) and the exercise of each operation.
 */
export function expectedExchanges(cases: Array<{ check: CaseCheck }>, exercised: number): number {
  const judging = cases
    .filter((c) => !familyReadsExercise(c.check.family))
    .reduce((sum, c) => sum + exchangesPerCase(c.check), 0);
  return Math.round(judging + exercised * EXERCISE_EXCHANGES);
}

/**
 * A family some of whose checks read the exercise of their operation (Check.reads): its cases are known, and
 * judged, only once their operations are exercised, and a time-boxed run plans the family so.
 */
export const familyReadsExercise = (family: string): boolean =>
  CHECKS.some((c) => c.family === family && c.reads === 'exercise');

/**
 * A case this long holds one of the scheduler's places for most of a short budget (its exchanges go one after
 * another): it must start at once or it will not finish, while cheaper cases fill the other places.
 */
export const LONG_CASE_EXCHANGES = 100;

/**
 * The order of a budgeted run planned across families: the spec family first (it sends nothing); then the
 * cases of checks that catch a mutant of the kill matrix: the long ones first, then those on the core
 * collections (spec §2) before the others, each group by what a case is worth per exchange (the check's
 * mutants shared by its cases: a check run on 187 operations is worth less on each than one run on 2); then
 * the rest, the cheapest first. A case that reads the exercise pays its share of exercising its operation
 * (shared by every case that reads it). Stable otherwise.
 */
export function budgetOrder<T extends { check: CaseCheck; op: unknown }>(cases: T[], isCore: (c: T) => boolean): T[] {
  const readers = new Map<unknown, number>();
  const casesOfCheck = new Map<string, number>();
  for (const c of cases) {
    if (familyReadsExercise(c.check.family)) readers.set(c.op, (readers.get(c.op) ?? 0) + 1);
    casesOfCheck.set(c.check.id, (casesOfCheck.get(c.check.id) ?? 0) + 1);
  }
  const costOf = (c: T) =>
    Math.max(0.5, exchangesPerCase(c.check)) +
    (familyReadsExercise(c.check.family) ? EXERCISE_EXCHANGES / readers.get(c.op)! : 0);
  return cases
    .map((c, i) => {
      const caught = MUTANTS_CAUGHT[c.check.id] ?? 0;
      const cost = costOf(c);
      const long = caught > 0 && cost >= LONG_CASE_EXCHANGES;
      const worth = caught / casesOfCheck.get(c.check.id)!;
      const key = [
        c.check.family === 'spec' ? 0 : 1,
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
