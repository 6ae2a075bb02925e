/**
 * How vitest runs the suites. The CLI hands it to vitest inline: no configuration file is read, so none is
 * bundled before each run (vitest.config.ts is our own tests' only).
 */
import { FamilySequencer } from './familySequencer.js';

/**
 * The whole configuration of a run's vitest. `moduleCache: false` is for a vitest started inside a vitest
 * worker (our tests of this), where the inner one's cached modules confuse the outer one's source maps.
 */
export function suitesConfig({ declaresFamilies = false, moduleCache = true } = {}) {
  return {
    include: ['suites/**/*.test.ts'],
    // The file of the families a run declares (--check-modules) runs only in a run that declares some.
    exclude: declaresFamilies ? [] : ['suites/declared.test.ts'],
    // The suites' modules, transformed once and kept on disk (node_modules/.experimental-vitest-cache,
    // keyed by content): a run does not transform ~100 TypeScript files again before its first request.
    experimental: { fsModuleCache: moduleCache },
    // allure-vitest's runtime: labels and attachments travel in task meta to its reporter.
    setupFiles: ['allure-vitest/setup'],
    // One worker, no isolation: every suite file shares one run (its session: document, fixtures, exchanges).
    pool: 'threads' as const,
    maxWorkers: 1,
    isolate: false,
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // The families' order (familySequencer.ts).
    sequence: { sequencer: FamilySequencer },
    // How long the worker may take to stop before vitest says so on stderr (default 10 s), where a user reads only
    // the suite's own lines: a run's worker has taken longer on a busy machine.
    teardownTimeout: 60_000,
  };
}
