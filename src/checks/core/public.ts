/**
 * What a module of a user's own checks imports (`orchestration-api-conformance/check`): the one declaration
 * of a check, the verdicts it returns and the context it sees. A run adds the module's checks with
 * `--check-modules`, each in a family of its own, planned, judged and reported as the suite's own are.
 */
export { defineCheck, type Check, type CheckId, type Level } from './check.js';
export type { CheckContext, Exchange } from './context.js';
export { fail, failAll, failure, pass, skip, Skip, type Failure, type FailureKind, type Verdict } from './verdict.js';
export type { Operation } from '../../openapi/operations.js';
