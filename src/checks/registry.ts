/** Every check of the suite, by family: what the suites register, `docs/checks.md` lists and the registry test pins. */
import { aggregatesChecks } from './aggregates.js';
import { authChecks } from './auth.js';
import type { Check, Family } from './check.js';
import { contractChecks } from './contract.js';
import { errorsChecks } from './errors.js';
import { filtersChecks } from './filters.js';
import { methodsChecks } from './methods.js';
import { orchestrationChecks } from './orchestration.js';
import { paginationChecks } from './pagination.js';
import { sortingChecks } from './sorting.js';
import { specChecks } from './spec.js';
import { versioningChecks } from './versioning.js';

export const CHECKS: readonly Check[] = [
  ...specChecks,
  ...contractChecks,
  ...methodsChecks,
  ...orchestrationChecks,
  ...errorsChecks,
  ...versioningChecks,
  ...authChecks,
  ...filtersChecks,
  ...sortingChecks,
  ...paginationChecks,
  ...aggregatesChecks,
];

export const checksOf = (family: Family): Check[] => CHECKS.filter((c) => c.family === family);
