/**
 * How much each check has been shown to catch: the mutants of the kill matrix (test/mutants/registry.ts)
 * that name it among their killers. A time-boxed run (--budget) judges the checks that catch the most
 * first. test/unit/run/detection.test.ts holds this table to the registry, so that it cannot drift.
 */
export const MUTANTS_CAUGHT: Readonly<Record<string, number>> = {
  'filters.oracle': 10,
  'contract.no-5xx': 4,
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
  'filters.seed-example': 1,
  'methods.delete-only-target': 1,
  'methods.delete-twice-404': 1,
  'methods.get-ignores-body': 1,
  'methods.get-safe': 1,
  'methods.put-idempotent': 1,
  'orchestration.create-flow-run-state': 1,
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
 * time is what each family took in a default run (docs/performance.md); contract and errors come last as
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
