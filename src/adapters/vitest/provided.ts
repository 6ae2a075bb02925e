/**
 * What the supervising CLI provides the suites through vitest (its `provide` option, read with `inject` in the
 * worker and `getProvidedContext` on the main thread): the run's configuration as known at the start, handed
 * over as a value, never through the environment.
 */
import type { WorkerStart } from '../../config/worker.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's configuration at the suites' start; absent where vitest runs the suite files outside a run. */
    conformanceStart?: WorkerStart;
  }
}

/** The key it is provided under. */
export const PROVIDED_START = 'conformanceStart';
