/** What the commands share: the repository's root, the log line, the suites' reporters, reading a run's results, the shipped baselines, and the reports every run ends with. */
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { githubActions, quietRequested, type Config } from '../config/config.js';
import { suitesStartWith, type ReporterOptions, type WorkerStart } from '../config/worker.js';
import { chooseBaseline, shippedBaselines, type BaselineChoice, type ReleaseClues } from '../report/baselineChoice.js';
import { htmlReport } from '../report/html.js';
import { markdownSummary } from '../report/markdown.js';
import { junitReport } from '../report/junit.js';
import { exitCodeOf, type Results } from '../report/results.js';
import { terminalSummary } from '../report/terminal.js';
import { startSuites, type Reporters, type Suites } from '../supervisor/suitesInProcess.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function log(line: string): void {
  if (!quietRequested()) process.stderr.write(`conformance: ${line}\n`);
}

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
  path.join(repoRoot, 'src', 'report', name),
  { start },
];

/** The suites of a run, by vitest in this process, given what they know at their start. */
export function runSuites(start: WorkerStart): Suites {
  const names: Reporters = reporters(start);
  // Progress unless asked to be quiet: a line rewritten in place at a terminal, plain lines in CI or a pipe.
  if (!start.quiet) names.push(reporter('progress.ts', start));
  // vitest's sharding splits the suite files; each shard also leaves a blob report for `merge` (i/n: blob-i-n.json).
  const blobFile = start.shard && path.join(start.outDir, 'blob', `blob-${start.shard.replace('/', '-')}.json`);
  if (blobFile) names.push('blob');
  const startedWith = suitesStartWith(start);
  const suites = startSuites({
    root: repoRoot,
    reporters: names,
    shard: start.shard,
    blobFile,
    declaresFamilies: start.checkModules.length > 0,
    log,
  });
  void suites.ended.finally(startedWith);
  return suites;
}

/** A results.json named by itself or by its folder. */
export const resultsFileIn = (arg: string): string =>
  existsSync(arg) && statSync(arg).isDirectory() ? path.join(arg, 'results.json') : arg;

export function readResults(file: string): Results | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Results;
  } catch {
    return undefined;
  }
}

/** The baselines the suite ships, one per release (`<profile>-<release>.json`). */
export const SHIPPED_BASELINES = path.join(repoRoot, 'fixtures', 'baselines');

/** The baseline of a run (report/baselineChoice.ts: a file named, none, or the shipped one the rule finds). */
export function baselineOf(config: Pick<Config, 'baselinePath'>, profile: string, clues: ReleaseClues): BaselineChoice {
  return chooseBaseline(config.baselinePath, profile, clues, shippedBaselines(SHIPPED_BASELINES, profile), (file) =>
    path.relative(repoRoot, file),
  );
}

/** The reports every run ends with, sharded or not; returns the exit code. */
export function writeReports(results: Results, outDir: string): number {
  results.exitCode = exitCodeOf(results);
  writeFileSync(path.join(outDir, 'results.json'), JSON.stringify(results, null, 2));
  writeFileSync(path.join(outDir, 'junit.xml'), junitReport(results));
  writeFileSync(path.join(outDir, 'summary.md'), markdownSummary(results));
  // GitHub Actions shows this file on the run's page: the summary goes there without a workflow step to copy it.
  const { stepSummary } = githubActions();
  if (stepSummary) appendFileSync(stepSummary, `${markdownSummary(results)}\n`);
  writeFileSync(path.join(outDir, 'index.html'), htmlReport(results));
  process.stdout.write(`${terminalSummary(results)}\n`);
  return results.exitCode;
}
