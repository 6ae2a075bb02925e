/**
 * The run's one thread beside the main one (supervisor/thread.ts): what the run asks before the suites start
 * (preflight.ts), then its cleanup (cleanupThread.ts), which waits there for the suites' end. Cleanup's modules
 * load when it is first called, once the target is surveyed: the survey's first request is not held behind them.
 */
import type { CleanupDone, CleanupEnd, CleanupTarget } from './cleanupThread.js';

export * from './preflight.js';

const cleanup = () => import('./cleanupThread.js');

export async function watch(run: CleanupTarget): Promise<void> {
  (await cleanup()).watch(run);
}

export async function finish(end: CleanupEnd): Promise<CleanupDone> {
  return (await cleanup()).finish(end);
}
