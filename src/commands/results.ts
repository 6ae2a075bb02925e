/** A run's results: read from a results.json, and written as the reports every run ends with. */
import { conformanceStatement } from '../report/statement.js';
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { githubActions } from '../config/config.js';
import { htmlReport } from '../report/html.js';
import { markdownSummary } from '../report/markdown.js';
import { junitReport } from '../report/junit.js';
import { exitCodeOf, type Results } from '../report/results.js';
import { terminalSummary } from '../report/terminal.js';

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

/** The reports every run ends with, sharded or not; returns the exit code. */
export function writeReports(results: Results, outDir: string): number {
  results.exitCode = exitCodeOf(results);
  results.statement = conformanceStatement(results);
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
