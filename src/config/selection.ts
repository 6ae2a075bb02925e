/**
 * What a run selects: operations by expression, document tag and method, checks by id or glob and by
 * family, each to include or to exclude. Whatever is left out is counted in results.json as not selected,
 * never as passed.
 */
import type { Env } from './env.js';
import { UsageError } from './errors.js';

export interface Selection {
  operations?: string;
  excludeOperations?: string;
  tags?: string[];
  excludeTags?: string[];
  methods?: string[];
  excludeMethods?: string[];
  checks?: string[];
  excludeChecks?: string[];
  families?: string[];
  excludeFamilies?: string[];
  /** Exact (check id, operation) pairs, "check-id METHOD /path": what `replay` reruns. */
  cases?: string[];
}

const list = (raw: string | undefined): string[] | undefined => {
  const items = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return items.length ? items : undefined;
};

function regex(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  try {
    new RegExp(raw);
  } catch {
    throw new UsageError(`${name} is not a valid regular expression: "${raw}"`);
  }
  return raw;
}

export function selectionFrom(env: Env): Selection {
  const upper = (items: string[] | undefined) => items?.map((m) => m.toUpperCase());
  const selection: Selection = {
    operations: regex(env, 'CONFORMANCE_OPERATIONS'),
    excludeOperations: regex(env, 'CONFORMANCE_EXCLUDE_OPERATIONS'),
    tags: list(env.CONFORMANCE_TAGS),
    excludeTags: list(env.CONFORMANCE_EXCLUDE_TAGS),
    methods: upper(list(env.CONFORMANCE_METHODS)),
    excludeMethods: upper(list(env.CONFORMANCE_EXCLUDE_METHODS)),
    checks: list(env.CONFORMANCE_CHECKS),
    excludeChecks: list(env.CONFORMANCE_EXCLUDE_CHECKS),
    families: list(env.CONFORMANCE_FAMILIES),
    excludeFamilies: list(env.CONFORMANCE_EXCLUDE_FAMILIES),
  };
  return Object.fromEntries(Object.entries(selection).filter(([, v]) => v !== undefined)) as Selection;
}

/** A glob over check ids: `*` stands for any run of characters. */
export function globMatches(glob: string, id: string): boolean {
  const pattern = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${pattern}$`).test(id);
}

export function selectsOperation(
  selection: Selection,
  op: { key: string; method: string; tags?: readonly string[] },
): boolean {
  const method = op.method.toUpperCase();
  const tags = op.tags ?? [];
  if (selection.cases && !selection.cases.some((c) => c.slice(c.indexOf(' ') + 1) === op.key)) return false;
  if (selection.operations && !new RegExp(selection.operations).test(op.key)) return false;
  if (selection.excludeOperations && new RegExp(selection.excludeOperations).test(op.key)) return false;
  if (selection.tags && !tags.some((t) => selection.tags!.includes(t))) return false;
  if (selection.excludeTags && tags.some((t) => selection.excludeTags!.includes(t))) return false;
  if (selection.methods && !selection.methods.includes(method)) return false;
  if (selection.excludeMethods?.includes(method)) return false;
  return true;
}

/** The fields that select checks: selectsCheck is typed to read these alone, so the list cannot fall behind it. */
const CHECK_FIELDS = ['cases', 'families', 'excludeFamilies', 'checks', 'excludeChecks'] as const;
type CheckSelection = Pick<Selection, (typeof CHECK_FIELDS)[number]>;

export function selectsCheck(selection: CheckSelection, check: { id: string; family: string }): boolean {
  if (selection.cases && !selection.cases.some((c) => c.slice(0, c.indexOf(' ')) === check.id)) return false;
  if (selection.families && !selection.families.includes(check.family)) return false;
  if (selection.excludeFamilies?.includes(check.family)) return false;
  if (selection.checks && !selection.checks.some((g) => globMatches(g, check.id))) return false;
  if (selection.excludeChecks?.some((g) => globMatches(g, check.id))) return false;
  return true;
}

/** Whether the selection leaves any check out: if not, it selects every one. */
export const narrowsChecks = (selection: Selection): boolean =>
  CHECK_FIELDS.some((field) => selection[field] !== undefined);

/** Whether a selection of exact cases (replay) has this check on this operation; any pair without one. */
export const selectsCase = (selection: Selection, checkId: string, operation: string): boolean =>
  !selection.cases || selection.cases.includes(`${checkId} ${operation}`);

/** Whether the run covers only part of the document or of the checks. */
export const isPartial = (selection: Selection): boolean => Object.keys(selection).length > 0;

/** The selection in one line, for logs and results.json. */
export function describeSelection(selection: Selection): string {
  return Object.entries(selection)
    .map(([k, v]) => (k === 'cases' ? `cases=${(v as string[]).length}` : `${k}=${Array.isArray(v) ? v.join(',') : v}`))
    .join('; ');
}
