/**
 * The run's one thread beside the main one (supervisor/thread.ts): what the run asks before the suites start
 * (preflight.ts), then its cleanup (cleanupThread.ts), which waits there for the suites' end. Cleanup's modules
 * load when it is first called, once the target is surveyed: the survey's first request is not held behind them.
 */
import type { CleanupDone, CleanupEnd, CleanupTarget } from './cleanupThread.js';

export * from './preflight.js';

/** The thread's cleanup (thread.ts: what it keeps between `watch` and `finish` is the thread's). */
export function threadOwned() {
  let made: Promise<import('./cleanupThread.js').ThreadCleanup> | undefined;
  const cleanup = () => (made ??= import('./cleanupThread.js').then((m) => new m.ThreadCleanup()));
  return {
    async watch(run: CleanupTarget): Promise<void> {
      (await cleanup()).watch(run);
    },
    async finish(end: CleanupEnd): Promise<CleanupDone> {
      return (await cleanup()).finish(end);
    },
  };
}

/** What the run's thread answers: the preflight's functions and its cleanup's. */
export type RunThread = typeof import('./preflight.js') & ReturnType<typeof threadOwned>;
