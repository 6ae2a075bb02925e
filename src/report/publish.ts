/**
 * Reports are written to a fresh folder beside the report folder and moved into it when the run ends, so
 * that a run that fails before judging anything (an unreachable target, a typo) leaves the previous
 * run's reports whole, rather than half deleted. A run that judged leaves the folder holding its own files
 * only: what earlier runs or comparisons of the suite wrote there goes, under the suite's own names and no
 * other (a user's file stays), so that no report of one run sits beside another's.
 */
import { REPORT_FORMATS } from './formats.js';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { isAlive } from '../config/alive.js';
import { UsageError } from '../config/errors.js';
import { EXPLORE_NAMES } from './explore.js';

/**
 * Every name the suite writes in a report folder: a run's reports, its run folder and managed server's log,
 * what is made of them later (the Allure report, baseline verify's findings, a replay), a shard's blob reports, and a
 * comparison's files and sides' folders.
 */
export const SUITE_NAMES: readonly string[] = [
  ...REPORT_FORMATS.map((f) => f.file),
  'allure-results',
  // `npm run report:allure`'s report of the run's allure-results.
  'allure',
  'server.log',
  'baseline-verify.json',
  // `replay`'s rerun of this folder's results.
  'replay',
  '.run',
  'blob',
  'compare.json',
  'compare.md',
  'compare.html',
  'compare-a',
  'compare-b',
  ...EXPLORE_NAMES,
];

/** `.<name>.<suffix>` beside the report folder: the same file system, so a move is a rename. */
function besideReports(outDir: string, suffix: string): string {
  const abs = path.resolve(outDir);
  return path.join(path.dirname(abs), `.${path.basename(abs)}.${suffix}`);
}

/** The folder a run writes into: `.<name>.next` beside the report folder. */
export const stagingFolder = (outDir: string): string => besideReports(outDir, 'next');

/**
 * The report folder taken for this run until the returned function gives it back. Two runs into one folder would
 * share its staging folder, each deleting what the other wrote (its document, its ledger): a verdict on nothing,
 * and objects left on the target. The lock is `.<name>.lock` beside the folder, holding the pid of the run that
 * has it; a lock whose process is gone (a run killed) is taken over. Held by a running process: bad input.
 */
export function lockReportFolder(outDir: string): () => void {
  const lock = besideReports(outDir, 'lock');
  mkdirSync(path.dirname(lock), { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return () => {
        if (existsSync(lock) && readFileSync(lock, 'utf8') === String(process.pid)) rmSync(lock, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = readFileSync(lock, 'utf8');
    // An empty lock is one being written this moment; a pid gone is a run that ended without giving it back.
    if (holder === '' || isAlive(Number(holder)) || attempt >= 2)
      throw new UsageError(
        `the report folder ${shownPath(outDir)} is in use by another run (pid ${holder || '?'}, ${lock}): give each run its own --out`,
      );
    rmSync(lock, { force: true });
  }
}

/** A fresh, empty staging folder (one a crashed run left behind is discarded). */
export function freshStagingFolder(outDir: string): string {
  const stage = stagingFolder(outDir);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  return stage;
}

/**
 * Once the suites have ended (the run has judged), what earlier runs of the suite left under its names
 * (SUITE_NAMES, and any other name this run has written) is moved aside and deleted in the background, while
 * cleanup ends: allure's thousands of files are slow to delete, and the target would wait idle. A shard's blob
 * report stays with the other shards'. Resolves when they are deleted (a failure rejects: publish replaces what
 * is left).
 */
export async function clearReplaced(stage: string, outDir: string, shard = false): Promise<void> {
  // Where the previous run's entries wait to be deleted.
  const aside = besideReports(outDir, 'old');
  // Left by a run that ended between here and publish: deleted with this run's.
  mkdirSync(aside, { recursive: true });
  const names = new Set([...SUITE_NAMES, ...readdirSync(stage)]);
  for (const name of names) {
    const previous = path.join(outDir, name);
    // The shards of one run leave their blobs in one folder.
    if ((name === 'blob' && shard) || !existsSync(previous)) continue;
    rmSync(path.join(aside, name), { recursive: true, force: true });
    renameSync(previous, path.join(aside, name));
  }
  await rm(aside, { recursive: true, force: true });
}

/**
 * Move everything the run wrote into the report folder, replacing what the previous run left under the
 * same names (`results.json`, `allure-results/`, `.run/`, ...); other files of the folder stay, and a shard's
 * blob report joins those of the other shards. Returns the names moved in.
 */
export function publish(stage: string, outDir: string): string[] {
  mkdirSync(outDir, { recursive: true });
  const names = readdirSync(stage);
  for (const name of names) {
    const target = path.join(outDir, name);
    // The shards of one run may share a report folder: each adds its blob to the others'.
    if (name === 'blob' && existsSync(target)) {
      publish(path.join(stage, name), target);
      continue;
    }
    if (existsSync(target)) rmSync(target, { recursive: true, force: true });
    renameSync(path.join(stage, name), target);
  }
  rmSync(stage, { recursive: true, force: true });
  return names;
}

/** The entries a run published, as its last line lists them: reports first, folders marked with a slash. */
export function publishedList(names: string[], outDir: string): string {
  const order = (name: string) => {
    const i = SUITE_NAMES.indexOf(name);
    return i === -1 ? SUITE_NAMES.length : i;
  };
  return [...names]
    .sort((a, b) => order(a) - order(b))
    .map((name) => (statSync(path.join(outDir, name)).isDirectory() ? `${name}/` : name))
    .join(', ');
}

export function discard(stage: string): void {
  rmSync(stage, { recursive: true, force: true });
}

/** A folder as the user can find it: relative when it is within the working folder, else whole (never `../x`). */
export function shownPath(folder: string, cwd = process.cwd()): string {
  const relative = path.relative(cwd, folder);
  return relative === '' ? '.' : relative.startsWith('..') || path.isAbsolute(relative) ? folder : relative;
}
