/** What travels from the conformance tests to the reporters in vitest's task meta (also through blob reports of shards). */
import type { CheckResult, OperationSummary, RunInfo } from '../../report/results.js';

declare module 'vitest' {
  interface TaskMeta {
    conformance?: CheckResult;
    /** Set on a suite file: its view of the run's operations and target. */
    operations?: OperationSummary[];
    runInfo?: RunInfo;
    /** Set by the filters suite: every (collection.field.operator) of the filter schemas, checked or why not. */
    filterCoverage?: Array<{ triple: string; checked: number; skipped?: string }>;
  }
}
