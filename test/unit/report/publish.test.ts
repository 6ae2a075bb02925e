/**
 * The report folder's replacement: the previous run's entries that this run has written go once the suites
 * have judged (clearReplaced), the rest of the folder stays, and publish moves the run's entries in.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import {
  clearReplaced,
  freshStagingFolder,
  lockReportFolder,
  publish,
  publishedList,
  shownPath,
} from '../../../src/report/publish.js';
import { UsageError } from '../../../src/config/errors.js';

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A report folder holding a previous run's reports and a file of the user's, and a fresh stage beside it. */
function folders() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'conformance-publish-'));
  const outDir = path.join(root, 'reports');
  for (let i = 0; i < 50; i++) write(path.join(outDir, 'allure-results', `${i}-result.json`), 'old');
  write(path.join(outDir, 'results.json'), 'old');
  write(path.join(outDir, 'index.html'), 'old');
  write(path.join(outDir, 'blob', 'shard-1.json'), 'shard 1');
  write(path.join(outDir, 'notes.txt'), "the user's");
  const stage = freshStagingFolder(outDir);
  write(path.join(stage, 'allure-results', 'a-result.json'), 'new');
  write(path.join(stage, 'results.json'), 'new');
  write(path.join(stage, 'blob', 'shard-2.json'), 'shard 2');
  return { root, outDir, stage };
}

describe('clearReplaced', () => {
  test("moves aside at once what earlier runs left under the suite's names, and deletes it; a user's file stays", async () => {
    const { root, outDir, stage } = folders();
    // A managed run's server log and a comparison's files, neither of which this run writes.
    write(path.join(outDir, 'server.log'), 'old');
    write(path.join(outDir, 'compare.md'), 'old');
    write(path.join(outDir, 'compare-b', 'results.json'), 'old');
    const clearing = clearReplaced(stage, outDir, true);
    // Moved aside before the first await: the run's later writes cannot meet them. A shard keeps the others' blobs.
    expect(readdirSync(outDir).sort()).toEqual(['blob', 'notes.txt']);
    await clearing;
    expect(readdirSync(root).sort()).toEqual(['.reports.next', 'reports']);
    // A file the run writes only after the suites (index.html) is replaced by publish.
    write(path.join(stage, 'index.html'), 'new');
    publish(stage, outDir);
    expect(readdirSync(path.join(outDir, 'allure-results'))).toEqual(['a-result.json']);
    expect(readFileSync(path.join(outDir, 'results.json'), 'utf8')).toBe('new');
    expect(readFileSync(path.join(outDir, 'index.html'), 'utf8')).toBe('new');
    expect(readdirSync(path.join(outDir, 'blob')).sort()).toEqual(['shard-1.json', 'shard-2.json']);
    expect(readFileSync(path.join(outDir, 'notes.txt'), 'utf8')).toBe("the user's");
    expect(existsSync(stage)).toBe(false);
  });

  test('a run that is not a shard leaves no blob of earlier shards for merge to mix in', async () => {
    const { outDir, stage } = folders();
    await clearReplaced(stage, outDir);
    publish(stage, outDir);
    expect(readdirSync(path.join(outDir, 'blob'))).toEqual(['shard-2.json']);
  });

  test('what a run that ended before publishing left aside is deleted with the next one', async () => {
    const { root, outDir, stage } = folders();
    write(path.join(root, '.reports.old', 'allure-results', 'stale.json'), 'older');
    write(path.join(root, '.reports.old', 'junit.xml'), 'older');
    await clearReplaced(stage, outDir);
    expect(existsSync(path.join(root, '.reports.old'))).toBe(false);
  });
});

describe('publishedList', () => {
  test("names every entry published, the report first, folders with a slash, in the suite's order", () => {
    const { outDir, stage } = folders();
    write(path.join(stage, 'server.log'), 'new');
    write(path.join(stage, 'index.html'), 'new');
    const names = publish(stage, outDir);
    expect(publishedList(names, outDir)).toBe('index.html, results.json, allure-results/, server.log, blob/');
  });
});

describe('shownPath', () => {
  test('relative within the working folder, whole outside it, never ../x', () => {
    expect(shownPath('/work/repo/reports', '/work/repo')).toBe('reports');
    expect(shownPath('/work/repo', '/work/repo')).toBe('.');
    expect(shownPath('/tmp/x', '/work/repo')).toBe('/tmp/x');
    expect(shownPath('/work/other/reports', '/work/repo')).toBe('/work/other/reports');
  });
});

describe("a report folder is one run's at a time", () => {
  const lockOf = (root: string) => path.join(root, '.reports.lock');

  test('a second run into a folder a running process holds is bad input, and the first keeps it', () => {
    const { root, outDir } = folders();
    const release = lockReportFolder(outDir);
    expect(readFileSync(lockOf(root), 'utf8')).toBe(String(process.pid));
    // Held by a running process (the parent of this test's, standing in for another run).
    writeFileSync(lockOf(root), String(process.ppid));
    expect(() => lockReportFolder(outDir)).toThrow(UsageError);
    expect(() => lockReportFolder(outDir)).toThrow(/in use by another run \(pid \d+.*give each run its own --out/);
    // Not this run's lock any more: giving it back leaves it to its holder.
    release();
    expect(readFileSync(lockOf(root), 'utf8')).toBe(String(process.ppid));
  });

  test('a lock whose run is gone is taken over, and given back when the run ends', () => {
    const { root, outDir } = folders();
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    writeFileSync(lockOf(root), ended.stdout);
    const release = lockReportFolder(outDir);
    expect(readFileSync(lockOf(root), 'utf8')).toBe(String(process.pid));
    release();
    expect(existsSync(lockOf(root))).toBe(false);
  });
});
