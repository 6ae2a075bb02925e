/**
 * One run, one set of files: a run into a folder where earlier runs and a comparison left theirs leaves its own
 * only (a user's file stays), and says what it wrote; `compare` writes into a folder of its own by default.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { runCli } from '../support/runCli.js';

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

describe('the report folder', () => {
  test('a run leaves its own files only, names every one of them, and compare writes into a folder of its own', async () => {
    const outDir = mkdtempSync(path.join(os.tmpdir(), 'conformance-folder-'));
    // What a managed run and a comparison left, and a file of the user's.
    write(path.join(outDir, 'server.log'), 'an earlier managed run');
    write(path.join(outDir, 'compare.md'), 'an earlier comparison');
    write(path.join(outDir, 'compare-b', 'results.json'), '{}');
    write(path.join(outDir, 'notes.txt'), "the user's");
    const run = await runCli(['--read-only', '--operations', '^GET /health$'], {
      CONFORMANCE_BASE_URL: laneBaseUrl(),
      CONFORMANCE_OUT: outDir,
      CONFORMANCE_QUIET: '',
    });
    expect(run.code).toBe(0);
    expect(readdirSync(outDir).sort()).toEqual(
      ['.run', 'allure-results', 'index.html', 'junit.xml', 'notes.txt', 'results.json', 'summary.md'].sort(),
    );
    expect(run.stderr).toContain(
      `conformance: reports in ${outDir}: index.html, results.json, junit.xml, summary.md, allure-results/, .run/\n`,
    );

    const cwd = mkdtempSync(path.join(os.tmpdir(), 'conformance-cwd-'));
    const compared = await runCli(
      ['compare', outDir, outDir],
      { CONFORMANCE_OUT: '', CONFORMANCE_QUIET: '' },
      60_000,
      cwd,
    );
    expect(compared.code).toBe(0);
    expect(readdirSync(path.join(cwd, 'comparison')).sort()).toEqual(['compare.html', 'compare.json', 'compare.md']);
    expect(existsSync(path.join(outDir, 'compare.md'))).toBe(false);
    expect(compared.stderr).toContain(
      'conformance: comparison in comparison: compare.json, compare.md, compare.html\n',
    );
  });

  test("--report har adds exchanges.har: every exchange of the run, the CLI's own (preflight, cleanup) among them", async () => {
    const run = await runCli(['--report', 'har', '--operations', '^(GET|DELETE) /flows/\\{id\\}$|^POST /flows/$'], {
      CONFORMANCE_BASE_URL: laneBaseUrl(),
      CONFORMANCE_DISPOSABLE_TARGET: '1',
    });
    expect(run.code).toBe(0);
    const har = JSON.parse(readFileSync(path.join(run.outDir, 'exchanges.har'), 'utf8'));
    expect(har.log.version).toBe('1.2');
    const sentBy = new Set(
      har.log.entries.map((e: { comment: string }) => e.comment.replace(/^.* sent by ([^,]+).*$/, '$1')),
    );
    expect(har.log.entries.length).toBeGreaterThanOrEqual(run.results!.summary.requests - 5);
    expect([...sentBy]).toEqual(expect.arrayContaining(['exercise', 'other']));
    const written = har.log.entries.filter((e: { request: { method: string } }) => e.request.method === 'DELETE');
    expect(written.length).toBeGreaterThan(0);
  });
});
