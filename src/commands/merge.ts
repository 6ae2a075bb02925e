/** `merge`: the shards of a run, as one run's reports. */
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { configFrom, UsageError, type Env } from '../config/config.js';
import { workerStart } from '../config/worker.js';
import { startSuites } from '../supervisor/suitesInProcess.js';
import { repoRoot } from './repository.js';
import { logTo } from './log.js';
import { reporters } from './suites.js';
import { readResults, writeReports } from './results.js';

/**
 * `merge [DIR...]`: the blob reports of the shards of a run (`--shard i/n` leaves them in <out>/blob),
 * merged by vitest's mergeReports into one results.json and the reports, as if the run had not been split.
 */
export async function mergeCommand(args: string[], flags: Env): Promise<number> {
  const config = configFrom(flags);
  const log = logTo(config);
  const dirs = args.length ? args : [path.join(config.outDir, 'blob')];
  const blobs = dirs.flatMap((dir) =>
    existsSync(dir) && statSync(dir).isDirectory()
      ? readdirSync(dir)
          .filter((f) => f.startsWith('blob-'))
          .map((f) => path.join(dir, f))
      : [],
  );
  if (blobs.length === 0) throw new UsageError(`merge: no blob reports (blob-*.json) in ${dirs.join(', ')}`);
  mkdirSync(config.outDir, { recursive: true });
  const gathered = path.join(config.outDir, '.merge');
  rmSync(gathered, { recursive: true, force: true });
  mkdirSync(gathered, { recursive: true });
  for (const blob of blobs) copyFileSync(blob, path.join(gathered, path.basename(blob)));
  rmSync(path.join(config.outDir, 'allure-results'), { recursive: true, force: true });
  // The reporters read the output folder from the worker configuration, as in a run.
  const worker = workerStart(config, { runDir: '', startedAt: new Date().toISOString() });
  const { code } = await startSuites({
    root: repoRoot,
    start: worker,
    reporters: reporters(worker),
    mergeReports: gathered,
    log,
  }).ended;
  const results = readResults(path.join(config.outDir, 'results.json'));
  if (!results) throw new UsageError(`merge: vitest could not merge ${blobs.length} blob report(s) (exit ${code})`);
  log(`merged ${blobs.length} shard(s): ${blobs.map((b) => path.basename(b)).join(', ')}`);
  return writeReports(results, config.outDir, config.reports);
}
