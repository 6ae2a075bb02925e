/**
 * Reports are written to a fresh folder beside the report folder and moved into it when the run ends, so
 * that a run that fails before judging anything (an unreachable target, a typo) leaves the previous
 * run's reports whole, rather than half deleted.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';

/** `.<name>.<suffix>` beside the report folder: the same file system, so a move is a rename. */
function besideReports(outDir: string, suffix: string): string {
  const abs = path.resolve(outDir);
  return path.join(path.dirname(abs), `.${path.basename(abs)}.${suffix}`);
}

/** The folder a run writes into: `.<name>.next` beside the report folder. */
export const stagingFolder = (outDir: string): string => besideReports(outDir, 'next');

/** A fresh, empty staging folder (one a crashed run left behind is discarded). */
export function freshStagingFolder(outDir: string): string {
  const stage = stagingFolder(outDir);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  return stage;
}

/**
 * Once the suites have ended (the run has judged), the previous run's entries that this run has already
 * written under the same names are moved aside and deleted in the background, while cleanup ends: allure's
 * thousands of files took noticeable time to delete after cleanup, with the target idle. A shard's blob report
 * stays with the other shards'. Resolves when they are deleted (a failure rejects: publish replaces what is left).
 */
export async function clearReplaced(stage: string, outDir: string): Promise<void> {
  // Where the previous run's entries wait to be deleted.
  const aside = besideReports(outDir, 'old');
  // Left by a run that ended between here and publish: deleted with this run's.
  mkdirSync(aside, { recursive: true });
  for (const name of readdirSync(stage)) {
    const previous = path.join(outDir, name);
    if (name === 'blob' || !existsSync(previous)) continue;
    rmSync(path.join(aside, name), { recursive: true, force: true });
    renameSync(previous, path.join(aside, name));
  }
  await rm(aside, { recursive: true, force: true });
}

/**
 * Move everything the run wrote into the report folder, replacing what the previous run left under the
 * same names (`results.json`, `allure-results/`, `.run/`, ...); other files of the folder stay, and a shard's
 * blob report joins those of the other shards.
 */
export function publish(stage: string, outDir: string): void {
  mkdirSync(outDir, { recursive: true });
  for (const name of readdirSync(stage)) {
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
}

export function discard(stage: string): void {
  rmSync(stage, { recursive: true, force: true });
}

/** A folder as the user can find it: relative when it is within the working folder, else whole (never `../x`). */
export function shownPath(folder: string, cwd = process.cwd()): string {
  const relative = path.relative(cwd, folder);
  return relative === '' ? '.' : relative.startsWith('..') || path.isAbsolute(relative) ? folder : relative;
}
