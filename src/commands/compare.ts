/** `compare A B`: two runs, documents or targets, side by side. */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { configFrom, outFolderGiven, UsageError, type Env } from '../config/config.js';
import { runFiles } from '../config/runFolder.js';
import { readExchangeLog } from '../config/exchangeLog.js';
import { compareRuns, comparisonRegressed, targetName, type ComparedSide } from '../report/compare.js';
import { compareHtml, compareMarkdown } from '../report/compareReport.js';
import type { Results } from '../report/results.js';
import { publishedList, shownPath, SUITE_NAMES } from '../report/publish.js';
import { documentDrift } from '../openapi/drift.js';
import { managedSide } from '../managed/prefect.js';
import { type Log, logTo } from './log.js';
import { resultsFileIn } from './results.js';
import { runCommand } from './run.js';

/** A side of `compare`: a managed server or a live URL (run the suite on it), or a results.json, its folder, or an OpenAPI document. */
async function loadSide(
  arg: string,
  name: 'A' | 'B',
  outDir: string,
  flags: Env,
  log: Log,
): Promise<{ side: ComparedSide; document?: string }> {
  const managed = managedSide(arg);
  if (managed || /^https?:\/\//.test(arg)) {
    const dir = path.join(outDir, `compare-${name.toLowerCase()}`);
    log(`compare: running the suite on ${name} = ${arg}, reports in ${dir}`);
    // Each side names its own target: a managed side's release and database, or a URL (and no release).
    const overrides: Env = managed
      ? {
          CONFORMANCE_DB: managed.database,
          CONFORMANCE_PREFECT_VERSION: managed.version ?? flags.CONFORMANCE_PREFECT_VERSION ?? '',
          CONFORMANCE_BASE_URL: '',
          PREFECT_API_URL: '',
        }
      : { CONFORMANCE_BASE_URL: arg, CONFORMANCE_PREFECT_VERSION: '' };
    // What the side names (its target, its reports' folder) wins over the flags of the command, which apply
    // to both sides: `--out` names the comparison's folder, and each side's reports go in a folder within it.
    const side: Env = { ...overrides, CONFORMANCE_OUT: dir };
    const sideFlags = Object.fromEntries(Object.entries(flags).filter(([k]) => !(k in side)));
    await runCommand(sideFlags, side);
    arg = dir;
  }
  const file = resultsFileIn(arg);
  if (!existsSync(file))
    throw new UsageError(
      `compare: ${arg} is neither a URL, managed:sqlite, managed:postgres, managed:prefect@X[/postgres], nor a results.json or OpenAPI document`,
    );
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new UsageError(`compare: ${file} is not JSON (${(e as Error).message})`);
  }
  if (typeof parsed.openapi === 'string') return { side: { label: path.basename(file) }, document: file };
  if (!Array.isArray(parsed.checks))
    throw new UsageError(`compare: ${file} is neither a results.json nor an OpenAPI document`);
  const results = parsed as unknown as Results;
  const runDir = path.join(path.dirname(file), '.run');
  const files = runFiles(runDir);
  const behaviours = existsSync(files.exchanges) ? readExchangeLog(files.exchanges).filter((b) => b.key) : undefined;
  return {
    side: { label: targetName(results.target), results, behaviours },
    document: existsSync(files.document) ? files.document : undefined,
  };
}

/** What changed from one document to the other. The loader is imported here only: a run does not need it. */
async function driftOfFiles(a: string, b: string) {
  const { loadDocument } = await import('../openapi/load.js');
  return documentDrift((await loadDocument(a)).doc, (await loadDocument(b)).doc);
}

const within = (inner: string, outer: string) => inner === outer || inner.startsWith(`${outer}${path.sep}`);

/** What earlier runs or comparisons of the suite left in the folder goes; a side given as (or within) one of them is read, not cleared. */
function clearEarlier(outDir: string, sides: string[]): void {
  const inputs = sides.map((side) => path.resolve(side));
  for (const name of SUITE_NAMES) {
    const entry = path.join(outDir, name);
    if (!inputs.some((input) => within(input, entry) || within(entry, input)))
      rmSync(entry, { recursive: true, force: true });
  }
}

/** Where a comparison goes unless `--out` (or CONFORMANCE_OUT, or the file's outDir) names a folder: one of its own, never a run's. */
export const COMPARISON_FOLDER = 'comparison';

/**
 * `compare A B [run flags]`: writes compare.md, compare.html and compare.json; exit 1 when B regressed against A.
 * The folder holds one comparison: what an earlier run or comparison of the suite wrote there goes, but a side's
 * own reports, when a side names them.
 */
export async function compareCommand(a: string, b: string, flags: Env): Promise<number> {
  const config = configFrom(flags);
  const log = logTo(config);
  const outDir = outFolderGiven(config) ? config.outDir : path.resolve(COMPARISON_FOLDER);
  clearEarlier(outDir, [a, b]);
  mkdirSync(outDir, { recursive: true });
  const sideA = await loadSide(a, 'A', outDir, flags, log);
  const sideB = await loadSide(b, 'B', outDir, flags, log);
  const drift = sideA.document && sideB.document ? await driftOfFiles(sideA.document, sideB.document) : undefined;
  const comparison = compareRuns(sideA.side, sideB.side, drift);
  writeFileSync(path.join(outDir, 'compare.json'), JSON.stringify(comparison, null, 2));
  const markdown = compareMarkdown(comparison);
  writeFileSync(path.join(outDir, 'compare.md'), markdown);
  writeFileSync(path.join(outDir, 'compare.html'), compareHtml(comparison));
  process.stdout.write(compareMarkdown(comparison, 20));
  const written = readdirSync(outDir).filter((name) => SUITE_NAMES.includes(name));
  log(`comparison in ${shownPath(outDir)}: ${publishedList(written, outDir)}`);
  return comparisonRegressed(comparison) ? 1 : 0;
}
