import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Our integration test files that take longest (a minute or more, each), started first: four files run at a
 * time, and one of these started last would run alone at the end. The others follow in vitest's order.
 */
const LONGEST_FIRST = [
  'defaultRun',
  'killMatrix.contract',
  'killMatrix.verbs',
  'faults',
  'specServer',
  'hostedShape',
  'upgrade',
  'otherVersion',
];

/** Our own test files as vitest orders them, the longest first. (The suites' order is the CLI's: src/adapters/vitest.) */
class Sequencer extends BaseSequencer {
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
    // Four test files at a time on two cores: an integration file often waits (on a server starting, a target
    // that answers slowly or refuses by design, a rate limit, explore's minutes), and the cores are then kept
    // busy by the others: a clean clone's npm test is bound by its CPU, not by its longest file (docs/performance.md).
    maxWorkers: 4,
    projects: [
      {
        // Our unit tests: no server, files side by side.
        test: {
          name: 'unit',
          // A worker's files share their modules rather than load them again each: the unit project in half
          // its CPU (52 core-seconds to 27). Every file that stubs the environment restores it after each test.
          isolate: false,
          include: ['test/unit/**/*.test.ts'],
          globalSetup: ['test/buildSetup.ts'],
          testTimeout: 60_000,
        },
      },
      {
        // Our integration tests and the kill matrix, four files at a time, each file against the managed Prefect
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
