/**
 * The command line as a user meets it: help on every command, the version, the check list, the selection
 * flags, the configuration file, the target from a Prefect profile, and GitHub Actions' annotations and
 * step summary.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { BUILT_IN_CHECKS } from '../../src/checks/core/registry.js';
import { CONFIG_FILE_NAME } from '../../src/config/file.js';
import { OPTION_GROUPS, RUN_OPTIONS, SECRET_VARIABLES } from '../../src/config/options.js';
import { readPin } from '../../src/managed/prefect.js';
import { TOOL } from '../../src/report/tool.js';
import { repoRoot, runCli } from '../support/runCli.js';

function expectOneLine(run: { code: number; stderr: string }, pattern: RegExp) {
  expect(run.code).toBe(2);
  const lines = run.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

/** Help wraps long lines; compare it with whitespace collapsed. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

describe('help and version', () => {
  test.each([['--help'], ['-h'], ['help'], ['help', 'run'], ['run', '--help']])(
    '%s: every run flag with its variable and default, exit 0',
    async (...args) => {
      const r = await runCli(args);
      expect(r.code).toBe(0);
      const text = flat(r.stdout);
      if (args[0] === 'run' || args[1] === 'run') {
        for (const o of RUN_OPTIONS) {
          expect(text).toContain(o.flag);
          expect(text).toContain(`env: ${o.env}`);
          if (o.default) expect(text).toContain(`default: ${flat(o.default)}`);
        }
        // In groups, a user's questions in turn, and examples to start from.
        const headings = OPTION_GROUPS.map((g) => r.stdout.indexOf(`\n${g.heading}\n`));
        expect(headings.every((at) => at >= 0)).toBe(true);
        expect([...headings].sort((a, b) => a - b)).toEqual(headings);
        expect(r.stdout).toMatch(/\nExamples:\n {2}conformance /);
      } else {
        for (const command of ['run', 'compare', 'replay', 'merge', 'baseline', 'checks'])
          expect(text).toContain(command);
        for (const v of SECRET_VARIABLES) expect(text).toContain(v.env);
        // run is the default command: its common flags are in the first help a user reads.
        for (const flag of ['--base-url', '--read-only', '--baseline', '--operations', '--out'])
          expect(text).toContain(flag);
        // Grouped by purpose as run's help groups them, then three examples to start from.
        const headings = ['The target:', 'What to run:', 'The verdict:', 'Reports and settings:'].map((h) =>
          r.stdout.indexOf(`\n${h}\n`),
        );
        expect(headings.every((at) => at >= 0)).toBe(true);
        expect([...headings].sort((a, b) => a - b)).toEqual(headings);
        expect(
          r.stdout
            .match(/\nExamples:\n((?: {2}conformance.*\n)+)/)?.[1]
            .trim()
            .split('\n'),
        ).toHaveLength(3);
      }
    },
  );

  test.each([['compare'], ['merge'], ['checks'], ['replay'], ['baseline', 'update']])(
    '%s --help, exit 0',
    async (...command) => {
      const r = await runCli([...command, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: conformance ${command.join(' ')}`));
      expect(r.stdout).toContain('--help');
      // compare and replay take the run flags for the runs they make, and point at run's help for them.
      if (command[0] === 'compare' || command[0] === 'replay') {
        expect(r.stdout).not.toContain('--max-rate');
        expect(flat(r.stdout)).toContain('The run flags (`conformance run --help`) apply to the runs it makes.');
      }
    },
  );

  test('--version: the suite, the managed server and the baselines it knows', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${TOOL.name} ${TOOL.version}`);
    expect(r.stdout).toContain(`managed server: Prefect ${readPin().prefect}`);
    expect(r.stdout).toContain(`prefect-${readPin().prefect}`);
  });

  test('checks --json: every check of the registry with id, family, level, clause and title', async () => {
    const r = await runCli(['checks', '--json']);
    expect(r.code).toBe(0);
    const listed = JSON.parse(r.stdout) as Array<Record<string, string>>;
    expect(listed.map((c) => c.id).sort()).toEqual(BUILT_IN_CHECKS.map((c) => c.id).sort());
    for (const c of listed) for (const field of ['family', 'level', 'clause', 'title']) expect(c[field]).toBeTruthy();
  });

  test('checks: a line each with id, family, title (its level first) and clause; one format at a time', async () => {
    const r = await runCli(['checks']);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(BUILT_IN_CHECKS.length);
    for (const [i, c] of BUILT_IN_CHECKS.entries())
      expect(flat(lines[i])).toBe(`${c.id} ${c.family} ${c.title} (clause: ${c.clause})`);
    expectOneLine(await runCli(['checks', '--json', '--markdown']), /checks: --json or --markdown, not both/);
  });

  test('--spec and CONFORMANCE_SPEC, the former names of --document: taken as it, with a note', async () => {
    const document = path.join(repoRoot, 'fixtures', 'reference', 'prefect-openapi.json');
    const target = { CONFORMANCE_BASE_URL: 'http://127.0.0.1:1/api' };
    for (const [args, env, note] of [
      [['--spec', document], target, /^conformance: --spec is now --document/],
      [[`--spec=${document}`], target, /^conformance: --spec is now --document/],
      [[], { ...target, CONFORMANCE_SPEC: document }, /^conformance: CONFORMANCE_SPEC is now CONFORMANCE_DOCUMENT/],
    ] as const) {
      const run = await runCli([...args], env, 60_000);
      expect(run.code).toBe(2);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(note);
      expect(lines[1]).toMatch(/target unreachable: http:\/\/127\.0\.0\.1:1\/api/);
    }
  });

  test('an unknown option, and an extra word: one line, exit 2', async () => {
    expectOneLine(await runCli(['--no-such-flag']), /unknown option '--no-such-flag'/);
    expectOneLine(await runCli(['checks', '--yaml']), /unknown option '--yaml'/);
  });
});

describe('configuration file', () => {
  test('a file that breaks the schema: one line naming the setting, exit 2, before any server starts', async () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'conformance-cwd-'));
    writeFileSync(path.join(cwd, CONFIG_FILE_NAME), JSON.stringify({ seed: 5, concurency: 2 }));
    expectOneLine(await runCli([], {}, 60_000, cwd), /conformance\.config\.json: \/ unknown setting "concurency"/);
    const named = path.join(cwd, 'other.json');
    writeFileSync(named, JSON.stringify({ generated: 'ten' }));
    expectOneLine(await runCli(['--config', named], {}, 60_000, cwd), /other\.json: \/generated must be integer/);
  });
});

describe('selection and where the target came from', () => {
  test('a selection of no check: one line, exit 2', async () => {
    expectOneLine(
      await runCli(['--checks', 'no-such.*'], { CONFORMANCE_BASE_URL: laneBaseUrl() }),
      /selects none of the \d+ checks/,
    );
  });

  test('operations and checks left out are not selected, never passed; the target from a Prefect profile; GitHub Actions', async () => {
    const prefectHome = mkdtempSync(path.join(os.tmpdir(), 'prefect-home-'));
    writeFileSync(
      path.join(prefectHome, 'profiles.toml'),
      `active = "mine"\n[profiles.mine]\nPREFECT_API_URL = "${laneBaseUrl()}"\n`,
    );
    // The file is where a team keeps its settings; a flag overrides one of them.
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'conformance-cwd-'));
    writeFileSync(
      path.join(cwd, CONFIG_FILE_NAME),
      // No baseline: Prefect's known deviations on these operations fail, so that there are annotations to count.
      JSON.stringify({
        operations: '^(GET|POST|DELETE) /flows/',
        excludeMethods: ['DELETE'],
        generated: 3,
        baseline: 'none',
      }),
    );
    const stepSummary = path.join(cwd, 'step-summary.md');
    const r = await runCli(
      [
        '--families',
        'contract,errors',
        '--exclude-checks',
        'contract.available,errors.*-json',
        '--exclude-operations',
        'filter$',
        // The profile's server is the user's: writes only when allowed (README: the target).
        '--allow-writes',
      ],
      { PREFECT_HOME: prefectHome, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: stepSummary },
      300_000,
      cwd,
    );
    expect(r.stderr).not.toMatch(/internal error/);
    const results = r.results!;
    expect(results.targetSource).toBe(`Prefect profile "mine" (${path.join(prefectHome, 'profiles.toml')})`);
    expect(results.baseline).toEqual({ why: 'none (--baseline none)' });
    expect(results.target.baseUrl).toBe(laneBaseUrl());
    // Operations: those the file selects, less DELETE (file) and the filters (flag).
    const exercised = results.operations.filter((o) => o.exercised).map((o) => `${o.method} ${o.path}`);
    expect(exercised.length).toBeGreaterThan(0);
    for (const key of exercised) expect(key).toMatch(/^(GET|POST) \/flows\/(?!.*filter$)/);
    expect(results.notSelected!.operations).toContain('DELETE /flows/{id}');
    expect(results.notSelected!.operations).toContain('POST /flows/filter');
    expect(results.notSelected!.operations.length + exercised.length).toBeLessThanOrEqual(results.operations.length);
    // Checks: only the two families, less the excluded ones, which are listed as not selected.
    const ran = new Set(results.checks.map((c) => c.check));
    for (const id of ran) expect(id).toMatch(/^(contract|errors)\./);
    expect(ran.has('contract.available')).toBe(false);
    expect([...ran].some((id) => /^errors\..*-json$/.test(id))).toBe(false);
    const notSelected = new Set(results.notSelected!.checks);
    for (const c of BUILT_IN_CHECKS)
      expect(notSelected.has(c.id)).toBe(
        !/^(contract|errors)\./.test(c.id) || c.id === 'contract.available' || /^errors\..*-json$/.test(c.id),
      );
    expect(results.selection).toContain('excludeChecks=contract.available,errors.*-json');
    // GitHub Actions: the step summary is summary.md; each failure the gate counts is an error annotation,
    // each it does not (SHOULD, MAY) a warning.
    expect(readFileSync(stepSummary, 'utf8')).toBe(`${readFileSync(path.join(r.outDir, 'summary.md'), 'utf8')}\n`);
    const gated = results.checks.filter((c) => (c.status === 'failed' && c.level === 'MUST') || c.status === 'xpass');
    const warned = results.checks.filter((c) => c.status === 'failed' && c.level !== 'MUST');
    expect(gated.length).toBeGreaterThan(0);
    expect(warned.length).toBeGreaterThan(0);
    expect((r.stdout.match(/^::error /gm) ?? []).length).toBe(gated.length);
    expect((r.stdout.match(/^::warning /gm) ?? []).length).toBe(warned.length);
  });
});

describe('the baseline by URL', () => {
  test('auto: a Prefect given by URL gets the baseline of the version it reports; none: every deviation counts', async () => {
    const selection = ['--operations', '^POST /deployments/$', '--checks', 'contract.success-status-documented'];
    const env = { CONFORMANCE_BASE_URL: laneBaseUrl() };
    const auto = await runCli(selection, env);
    expect(auto.results!.baseline!.why).toMatch(
      new RegExp(`auto: the target is prefect ${readPin().prefect.replace(/\./g, '\\.')}`),
    );
    expect(auto.results!.checks.map((c) => c.status)).toEqual(['xfail']);
    expect(auto.code).toBe(0);
    const none = await runCli([...selection, '--baseline', 'none'], env);
    expect(none.results!.baseline).toEqual({ why: 'none (--baseline none)' });
    expect(none.results!.checks.map((c) => c.status)).toEqual(['failed']);
    expect(none.code).toBe(1);
  });
});
