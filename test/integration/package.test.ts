/**
 * The package as a user installs it: `npm pack`, then the tarball installed into an empty folder outside the
 * repository, and its bin run from there (issue 35: help, a run by URL, the managed default).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { prefectBaseline, repoRoot, runCli } from '../support/runCli.js';

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8' });

let folder = '';
let bin = '';
let tarball = '';

beforeAll(() => {
  const packed = mkdtempSync(path.join(os.tmpdir(), 'conformance-pack-'));
  // prepack compiles dist/ first, as it would before a publish.
  const name = npm(['pack', '--pack-destination', packed], repoRoot).trim().split('\n').at(-1) ?? '';
  tarball = path.join(packed, name);
  folder = mkdtempSync(path.join(os.tmpdir(), 'conformance-user-'));
  writeFileSync(path.join(folder, 'package.json'), '{"name":"a-team","private":true}\n');
  npm(['install', '--prefer-offline', tarball], folder);
  bin = path.join(folder, 'node_modules', '.bin', 'orchestration-api-conformance');
}, 300_000);

describe('the installed package', () => {
  test('the tarball holds what a run needs and none of our tests', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n');
    for (const needed of [
      'package/bin/conformance',
      'package/dist/cli.js',
      'package/suites/contract.test.ts',
      `package/${path.relative(repoRoot, prefectBaseline)}`,
      'package/fixtures/reference/prefect-openapi.json',
      'package/prefect-versions.json',
      'package/schemas/conformance.config.schema.json',
      'package/docs/checks.md',
    ])
      expect(files).toContain(needed);
    expect(files.filter((f) => f.startsWith('package/test/') || f.endsWith('.tsbuildinfo'))).toEqual([]);
  });

  test('its bin answers --help, under both names', () => {
    const help = execFileSync(bin, ['--help'], { cwd: folder, encoding: 'utf8' });
    expect(help).toMatch(/^Usage: /);
    expect(help).toContain('--base-url');
    const alias = execFileSync(path.join(folder, 'node_modules', '.bin', 'conformance'), ['--version'], {
      cwd: folder,
      encoding: 'utf8',
    });
    expect(alias).toContain('orchestration-api-conformance');
  });

  test('a run by URL from the user folder: read-only, exit 0, reports where the user is', async () => {
    const run = await runCli(
      ['--read-only', '--operations', '^POST /flows/count$', '--families', 'contract,errors'],
      { CONFORMANCE_BASE_URL: laneBaseUrl(), CONFORMANCE_OUT: path.join(folder, 'by-url') },
      300_000,
      folder,
      bin,
    );
    expect(run.stderr + run.stdout).toMatch(/PASS \(exit 0\)/);
    expect(run.code).toBe(0);
    expect(run.results?.readOnly).toBe(true);
    expect(run.results?.summary.passed).toBeGreaterThan(0);
    expect(existsSync(path.join(folder, 'by-url', 'index.html'))).toBe(true);
  });

  test('the managed default on one operation, from the user folder', async () => {
    const run = await runCli(
      ['--operations', '^GET /flows/\\{id\\}$'],
      { CONFORMANCE_OUT: path.join(folder, 'managed') },
      300_000,
      folder,
      bin,
    );
    expect(run.code).toBe(0);
    expect(run.results?.summary.failed).toBe(0);
    expect(run.results?.summary.passed).toBeGreaterThan(0);
    const summary = readFileSync(path.join(folder, 'managed', 'summary.md'), 'utf8');
    expect(summary).toContain('the managed server');
  });
});
