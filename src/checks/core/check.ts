/**
 * A check is a declarative record: a stable id whose prefix is its family, a level from the spec's words,
 * the clause it enforces, a title that starts with its level, and a rule that sees only its CheckContext
 * and returns a Verdict. `defineCheck` is the one way to declare one.
 */
import type { Operation } from '../../openapi/operations.js';
import type { CheckContext } from './context.js';
import type { Verdict } from './verdict.js';

export type Level = 'MUST' | 'SHOULD' | 'MAY';

/** The suite's own families, in the order their files run (a run may declare more: registry.ts, declareChecks). */
export const BUILT_IN_FAMILIES = [
  'spec',
  'contract',
  'methods',
  'orchestration',
  'errors',
  'versioning',
  'auth',
  'filters',
  'sorting',
  'pagination',
  'aggregates',
] as const;
export type BuiltInFamily = (typeof BUILT_IN_FAMILIES)[number];
/** A family's name: a built-in one, or one declared by a run's own check module (`--check-modules`). */
export type Family = string;

/** `<family>.<name>`: the family is the prefix. */
export type CheckId = `${string}.${string}`;

interface CheckFields<L extends Level> {
  /** Stable: reports, baselines and comparisons key on it. Its prefix is the family. */
  id: CheckId;
  level: L;
  /** The section of the spec (docs/spec/orchestration-rest-api.md), "OpenAPI document", or "profile". */
  clause: string;
  /** What the check demands, in the spec's words; starts with the level. */
  title: `${L} ${string}`;
  /** Whether the check says anything about this operation (default: every operation). */
  appliesTo?(op: Operation, ctx: CheckContext): boolean;
  /**
   * For a check with one verdict per case of an operation (the values of a sort enum): the cases, each
   * reported as `<id>[<variant>]`. Without it, one verdict per operation.
   */
  variants?(op: Operation, ctx: CheckContext): string[];
  run(op: Operation, ctx: CheckContext, variant?: string): Promise<Verdict> | Verdict;
  /**
   * What the check must not see beside it, since checks are judged concurrently (engine/scheduler.ts). By
   * default nothing: it judges answers to its own requests, or objects only it or the query corpus holds.
   * `quiet`: it compares the target's state across its requests (a count, a repeated read) and sends only
   * reads, so it runs beside other quiet checks and never beside a check that may write. `alone`: it writes
   * and then compares state beyond its own objects (a collection's count after a DELETE), so nothing runs
   * beside it but alone checks of other lanes (`lane`). `reads`: like the default, and it sends only reads
   * (GET, HEAD and the POSTs that query: model/model.ts isReadOperation), so it runs beside anything, quiet
   * and alone checks too, whose state a read does not change (`methods.get-safe` judges that); the query
   * corpus it reads is built by a job of its own, which may write. The client refuses its writes, and behind
   * a rate limit its requests let the others' go first (http/pacing/rateLimits.ts: nothing waits for it).
   */
  isolation?: Isolation;
  /**
   * For an isolated check: work its judgement will need that may run beside anything, done before it while
   * other checks run (the objects a DELETE scenario acts on, made before the scenario runs alone). The
   * judgement asks for the same work again and gets it done (checks/core/once.ts); a preparation that fails is met
   * there. Without it, everything the check sends is sent in its isolation.
   */
  prepare?(op: Operation, ctx: CheckContext): Promise<unknown>;
  /**
   * For an `alone` check: the state it compares, named, so that alone checks of other lanes may run beside it
   * (engine/scheduler.ts): a DELETE scenario on fresh objects names its collection's group of related
   * collections (model/relations.ts), beyond which its DELETE changes nothing. Undefined: nothing beside it.
   */
  lane?(op: Operation, ctx: CheckContext): string | undefined;
  /**
   * What the check reads besides the answers to its own requests: `exercise`, the exchanges of its
   * operation's exercise (CheckContext.exchangesOf), which must then be sent before it is judged (a
   * time-boxed run plans it so); `document`, the document alone: it sends nothing, so it is judged at once,
   * first, and never waits for the target. Unit tests hold every check that asks for the exercise to declaring
   * it, and every check that declares the document to sending nothing.
   */
  reads?: 'exercise' | 'document';
}

export type Isolation = 'reads' | 'quiet' | 'alone';

export interface Check extends CheckFields<Level> {
  family: Family;
  appliesTo(op: Operation, ctx: CheckContext): boolean;
  /**
   * What planning measured of a built-in check, never typed into its record (core/planning.ts): the
   * exchanges one case sends in the default run (default 1), and the kill matrix's mutants it catches
   * (default 0). A time-boxed run judges first the checks that catch the most for what they cost, and the
   * progress line estimates with the exchanges.
   */
  exchangesPerCase?: number;
  catches?: number;
}

/** The form of every check id: a family, a dot, a kebab-case name (`contract.no-5xx`). */
export const CHECK_ID = /^([a-z][a-z0-9]*)\.[a-z0-9]+(-[a-z0-9]+)*$/;

export function familyOf(id: string): Family {
  const family = CHECK_ID.exec(id)?.[1];
  if (!family)
    throw new Error(
      `check id ${JSON.stringify(id)} is not <family>.<kebab-case name> (a family such as ${BUILT_IN_FAMILIES.slice(0, 3).join(', ')}, or one of your own)`,
    );
  return family;
}

export function defineCheck<L extends Level>(fields: CheckFields<L>): Check {
  return { ...fields, family: familyOf(fields.id), appliesTo: fields.appliesTo ?? (() => true) };
}

/** The id a verdict is reported under: the check's, with its variant. */
export const reportedId = (check: Pick<Check, 'id'>, variant?: string): string =>
  variant === undefined ? check.id : `${check.id}[${variant}]`;

/** The check a reported id names (`reportedId`): the id with its variant left off. */
export const checkIdOf = (reported: string): string => reported.replace(/\[[^\]]*\]$/, '');
