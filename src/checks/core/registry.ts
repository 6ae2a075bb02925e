/**
 * Every check of a run, by family: the suite's own (what docs/checks.md lists and the registry test pins), and
 * those a run declares in modules of its own (`--check-modules`), each a family the built-in ones do not have.
 * What the engine plans, the suites register and `conformance checks` lists is read from here.
 */
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../../config/errors.js';
import { aggregatesChecks } from '../aggregates/records.js';
import { authChecks } from '../auth/records.js';
import { BUILT_IN_FAMILIES, type Check, CHECK_ID, type Family, familyOf } from './check.js';
import { withPlanning } from './planning.js';
import { contractChecks } from '../contract/records.js';
import { errorsChecks } from '../errors/records.js';
import { filtersChecks } from '../filters/records.js';
import { methodsChecks } from '../methods/records.js';
import { orchestrationChecks } from '../orchestration/records.js';
import { paginationChecks } from '../pagination/records.js';
import { sortingChecks } from '../sorting/records.js';
import { specChecks } from '../spec/records.js';
import { versioningChecks } from '../versioning/records.js';

/** The suite's own checks, in their families' order, each with what planning measured of it. */
export const BUILT_IN_CHECKS: readonly Check[] = [
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
].map((c) => withPlanning(c));

/**
 * The checks of one run: the suite's own, then those the run's own modules declare (`--check-modules`), in
 * declaration order. A value the run holds (its session, a command), never a registry of the process.
 */
export interface CheckRegistry {
  readonly all: readonly Check[];
  /** The families of the run in the order their files run: the built-in ones, then the declared ones. */
  families(): Family[];
  /** The families the run's own modules declare, in declaration order. */
  declaredFamilies(): Family[];
  checksOf(family: Family): Check[];
}

/** The registry of the suite's own checks and, after them, the declared ones given. */
export function checkRegistry(declared: readonly Check[] = []): CheckRegistry {
  const all = declared.length ? [...BUILT_IN_CHECKS, ...declared] : BUILT_IN_CHECKS;
  const declaredFamilies = () => [...new Set(declared.map((c) => c.family))];
  return {
    all,
    families: () => [...BUILT_IN_FAMILIES, ...declaredFamilies()],
    declaredFamilies,
    checksOf: (family) => all.filter((c) => c.family === family),
  };
}

/** The suite's own checks alone: a run that declares none. */
export const BUILT_IN_REGISTRY: CheckRegistry = checkRegistry();

/** What makes a module's export a check: the fields `defineCheck` always sets. */
function isCheck(value: unknown): value is Check {
  const c = value as Partial<Check> | null;
  return (
    typeof c === 'object' &&
    c !== null &&
    typeof c.id === 'string' &&
    typeof c.run === 'function' &&
    typeof c.appliesTo === 'function' &&
    ['MUST', 'SHOULD', 'MAY'].includes(c.level as string) &&
    typeof c.title === 'string' &&
    typeof c.clause === 'string'
  );
}

/**
 * The checks of one module, to be declared beside `already`: each must be made by `defineCheck`, with an id of
 * the form every check has, in a family the suite does not have (a declared check never changes what a
 * built-in family judges), and unique in the run.
 */
export function declaredChecks(checks: unknown, from: string, already: readonly Check[] = BUILT_IN_CHECKS): Check[] {
  const list = Array.isArray(checks) ? checks : [checks];
  if (list.length === 0) throw new UsageError(`check module ${from}: its default export declares no check`);
  const ids = new Set<string>(already.map((c) => c.id));
  for (const c of list) {
    if (!isCheck(c))
      throw new UsageError(
        `check module ${from}: its default export must be checks made by defineCheck (an array of them), not ${JSON.stringify(c)?.slice(0, 80)}`,
      );
    if (!CHECK_ID.test(c.id) || c.family !== familyOf(c.id))
      throw new UsageError(`check module ${from}: check id ${JSON.stringify(c.id)} is not <family>.<kebab-case name>`);
    if ((BUILT_IN_FAMILIES as readonly string[]).includes(c.family))
      throw new UsageError(
        `check module ${from}: ${c.id} is in the suite's own family ${c.family}; a declared check goes in a family of its own`,
      );
    if (!c.title.startsWith(`${c.level} `))
      throw new UsageError(`check module ${from}: the title of ${c.id} must start with its level (${c.level})`);
    if (ids.has(c.id)) throw new UsageError(`check module ${from}: the check ${c.id} is declared twice`);
    ids.add(c.id);
  }
  return list as Check[];
}

/**
 * The run's registry: the suite's checks, then those of the run's check modules (files, relative to the
 * working directory), each of which default-exports a check made by `defineCheck`, or an array of them. A
 * file named twice counts once. Node keeps a module it has imported: the CLI (for its preflight and listing)
 * and the suites' worker each load them, and a second load in one process imports nothing again.
 */
export async function loadCheckModules(files: readonly string[] = []): Promise<CheckRegistry> {
  const declared: Check[] = [];
  for (const file of new Set(files.map((f) => resolve(f)))) {
    let module: { default?: unknown };
    try {
      module = (await import(pathToFileURL(file).href)) as { default?: unknown };
    } catch (e) {
      throw new UsageError(`check module ${shown(file)} could not be loaded: ${(e as Error).message.split('\n')[0]}`);
    }
    if (module.default === undefined)
      throw new UsageError(`check module ${shown(file)} has no default export: export default [defineCheck({ ... })]`);
    declared.push(...declaredChecks(module.default, shown(file), [...BUILT_IN_CHECKS, ...declared]));
  }
  return declared.length ? checkRegistry(declared) : BUILT_IN_REGISTRY;
}

/** A module's file as the user named it: relative to the working directory where it is inside it. */
const shown = (file: string) => {
  const rel = relative(process.cwd(), file);
  return rel.startsWith('..') ? file : rel;
};
