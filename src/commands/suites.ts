/** The suites of a run, under vitest in this process, with the reporters the run hands what it knows. */
import path from 'node:path';
import { githubActions } from '../config/config.js';
import type { ReporterOptions, WorkerStart } from '../config/worker.js';
import { startSuites, type Reporters, type Suites } from '../supervisor/suitesInProcess.js';
import { logTo } from './log.js';
import { repoRoot } from './repository.js';

/**
 * Every reporter of a run, by file, each with what the run hands it (its options: the reporters read no
 * configuration of their own); they replace the configured ones, as `--reporter` flags would.
 */
export function reporters(start: WorkerStart): Reporters {
  return [
    reporter('vitestReporter.ts', start),
    reporter('allureReporter.ts', start),
    // Annotations in GitHub Actions.
    ...(githubActions().annotations ? [reporter('githubActionsReporter.ts', start)] : []),
  ];
}

/** One of the suite's reporters, by file, with what the run hands it. */
const reporter = (name: string, start: WorkerStart): [string, Record<string, unknown> & ReporterOptions] => [
  path.join(repoRoot, 'src', 'adapters', 'vitest', name),
  { start },
];

/** The suites of a run, by vitest in this process, given what they know at their start. */
export function runSuites(start: WorkerStart): Suites {
  const log = logTo(start);
  const names: Reporters = reporters(start);
  // Progress unless asked to be quiet: a line rewritten in place at a terminal, plain lines in CI or a pipe.
  if (!start.quiet) names.push(reporter('progress.ts', start));
  // vitest's sharding splits the suite files; each shard also leaves a blob report for `merge` (i/n: blob-i-n.json).
  const blobFile = start.shard && path.join(start.outDir, 'blob', `blob-${start.shard.replace('/', '-')}.json`);
  if (blobFile) names.push('blob');
  return startSuites({
    root: repoRoot,
    start,
    reporters: names,
    shard: start.shard,
    blobFile,
    declaresFamilies: start.checkModules.length > 0,
    workerFlags: () => start.suiteNodeFlags,
    log,
  });
}
