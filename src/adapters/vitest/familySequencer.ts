/**
 * The order of the suite files, one per family: the families' own order (spec, which needs no request,
 * first: the first verdicts come at once), or in a budgeted run the order their checks' declarations give
 * (detection.ts: budgetFamilyOrder). Files of no family (the self tests) keep vitest's order; sharding is vitest's.
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { BUILT_IN_FAMILIES } from '../../checks/core/check.js';
import { PROVIDED_START } from './provided.js';

export class FamilySequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // The checks' declarations (and all they import) load in the CLI's main thread only for a budgeted run.
    const start = this.ctx.getProvidedContext()[PROVIDED_START];
    const order: readonly string[] = start?.budgetSeconds ? await budgetOrder(start.checkModules) : BUILT_IN_FAMILIES;
    const rank = (f: TestSpecification) => {
      const i = order.indexOf(path.basename(f.moduleId).replace(/\.test\.ts$/, ''));
      return i < 0 ? order.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/** The families in a budgeted run's order, from the run's checks (the suite's and its modules'). */
async function budgetOrder(checkModules: string[]): Promise<string[]> {
  const [{ budgetFamilyOrder }, { loadCheckModules }] = await Promise.all([
    import('../../engine/detection.js'),
    import('../../checks/core/registry.js'),
  ]);
  return budgetFamilyOrder(await loadCheckModules(checkModules));
}
