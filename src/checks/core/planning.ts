/**
 * What planning knows of each built-in check, measured and never typed into its record (planning.json):
 * - `catches`: how many mutants of the kill matrix (test/mutants/registry.ts) name the check among their
 *   killers. Written by `npx tsx test/mutants/writeCatches.ts`; a unit test holds it to the matrix.
 * - `exchangesPerCase`: what one case of the check sends, on average, in the default run: `npm run bench`
 *   writes it from its run's exchange log (each exchange's sender) over the check's cases in results.json.
 *   A check the last bench did not see sending counts 1.
 */
import planning from './planning.json' with { type: 'json' };
import type { Check } from './check.js';

export interface Planning {
  catches: Record<string, number>;
  exchangesPerCase: Record<string, number>;
}

/** The measured figures, as planning.json holds them. */
export const PLANNING: Planning = planning;

/** A built-in check with its measured figures (absent where nothing was measured: the defaults apply). */
export function withPlanning(check: Check, figures: Planning = PLANNING): Check {
  const catches = figures.catches[check.id];
  const exchangesPerCase = figures.exchangesPerCase[check.id];
  return {
    ...check,
    ...(catches ? { catches } : {}),
    ...(exchangesPerCase !== undefined ? { exchangesPerCase } : {}),
  };
}
