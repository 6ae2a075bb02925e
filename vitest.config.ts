import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import type { TestSpecification } from 'vitest/node';
import { FamilySequencer } from './src/adapters/vitest/familySequencer.js';
import { readWorkerConfig } from './src/config/worker.js';

/** The file of the families a run declares (--check-modules) runs only in a run that declares some. */
const declaresFamilies = (readWorkerConfig()?.checkModules?.length ?? 0) > 0;

/**
 * Our integration test files that take longest (a minute or more, each), started first: two files run at a
 * time, and one of these started last would run alone at the end. The others follow in vitest's order.
 */
const LONGEST_FIRST = ['killMatrix', 'defaultRun', 'realServers', 'faults', 'servicesOn', 'otherVersion'];

/** The conformance files in the families' order; our own tests as vitest orders them, the longest first. */
class Sequencer extends FamilySequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.indexOf(path.basename(f.moduleId).replace(/\.test\.ts$/, ''));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    sequence: { sequencer: Sequencer },
    // Two test files at a time (the conformance project runs its suites in one worker, below): on two cores, one
    // integration file often waits on a server (starting, or answering slowly by design) while the other works.
    maxWorkers: 2,
    // How long a worker may take to stop before vitest says so on stderr (default 10 s). A run's worker (the suites'
    // thread) has taken longer on a busy machine (the PostgreSQL side of compare beside the kill matrix), which
    // printed vitest's line into a run's output, where a user reads only the suite's own.
    teardownTimeout: 60_000,
    projects: [
      {
        test: {
          name: 'conformance',
          include: ['suites/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...(declaresFamilies ? [] : ['suites/declared.test.ts'])],
          // The suites' modules, transformed once and kept on disk (node_modules/.experimental-vitest-cache,
          // keyed by content): a run does not transform ~100 TypeScript files again before its first request.
          experimental: { fsModuleCache: true },
          // allure-vitest's runtime: labels and attachments travel in task meta to its reporter.
          setupFiles: ['allure-vitest/setup'],
          // One worker, no isolation: every suite file shares one run (spec, fixtures, exchanges).
          pool: 'threads',
          maxWorkers: 1,
          isolate: false,
          fileParallelism: false,
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
      {
        // Our unit tests: no server, files side by side.
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          globalSetup: ['test/buildSetup.ts'],
          testTimeout: 60_000,
        },
      },
      {
        // Our integration tests and the kill matrix, two files at a time, each file against the managed Prefect
        // of its lane (test/globalSetup.ts), the longest first (below).
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/mutants/**/*.test.ts'],
          globalSetup: ['test/globalSetup.ts'],
          testTimeout: 900_000,
          hookTimeout: 900_000,
        },
      },
    ],
  },
});
