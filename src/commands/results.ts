/** A run's results: read from a results.json, and written as the reports every run ends with. */
import { conformanceStatement } from '../report/statement.js';
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { githubActions } from '../config/config.js';
import { exchangesIn, formatsOf } from '../report/formats.js';
import { markdownSummary } from '../report/markdown.js';
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

/**
 * The reports every run ends with, sharded or not (report/formats.ts: those always written and those `asked`
 * for by --report); returns the exit code.
 */
export function writeReports(results: Results, outDir: string, asked: readonly string[] = []): number {
  results.exitCode = exitCodeOf(results);
  results.statement = conformanceStatement(results);
  const exchanges = exchangesIn(outDir);
  for (const format of formatsOf(asked))
    writeFileSync(path.join(outDir, format.file), format.render(results, exchanges));
  // GitHub Actions shows this file on the run's page: the summary goes there without a workflow step to copy it.
  const { stepSummary } = githubActions();
  if (stepSummary) appendFileSync(stepSummary, `${markdownSummary(results)}\n`);
  process.stdout.write(`${terminalSummary(results)}\n`);
  return results.exitCode;
}
