import { configDefaults, defineConfig } from 'vitest/config';
import { FamilySequencer } from './src/adapters/vitest/familySequencer.js';
import { readWorkerConfig } from './src/config/worker.js';

/** The file of the families a run declares (--check-modules) runs only in a run that declares some. */
const declaresFamilies = (readWorkerConfig()?.checkModules?.length ?? 0) > 0;

export default defineConfig({
  test: {
    // The conformance files in the families' order (src/adapters/vitest/familySequencer.ts); our own tests as vitest orders them.
    sequence: { sequencer: FamilySequencer },
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
        // Our integration tests and the kill matrix, against one managed Prefect they share (globalSetup).
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/mutants/**/*.test.ts'],
          globalSetup: ['test/globalSetup.ts'],
          testTimeout: 600_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
