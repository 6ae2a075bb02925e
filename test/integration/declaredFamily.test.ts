/**
 * A family of checks declared by a user's own module, through the public declaration alone
 * (`orchestration-api-conformance/check`) and `--check-modules`: listed as the suite's own checks are, planned and
 * judged under --budget beside a built-in family, and refused as bad input when it is not a declaration.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { laneBaseUrl } from '../support/lane.js';
import { BUILT_IN_CHECKS } from '../../src/checks/core/registry.js';
import { checkListMarkdown } from '../../src/report/checkList.js';
import { exitCodeOf } from '../../src/report/results.js';
import { prefectTargetEnv, repoRoot, runCli } from '../support/runCli.js';

/**
 * Two checks of a family the suite does not have: one reads the exercise of its operation (which a time-boxed
 * run must then plan before it), one sends a request of its own.
 */
const MODULE = `import { defineCheck, fail, pass } from 'orchestration-api-conformance/check';

export default [
  defineCheck({
    id: 'probe.exercised-json',
    level: 'SHOULD',
    clause: '6',
    title: 'SHOULD answer the valid request of a read with JSON',
    reads: 'exercise',
    appliesTo: (op) => op.method === 'GET',
    run(op, ctx) {
      const exchange = ctx.exchangesOf(op).sent.find((s) => s.kind === 'recipe')?.exchange;
      if (!exchange || exchange.status >= 300) return pass('no answer to judge');
      const type = exchange.responseHeaders['content-type'] ?? '';
      return type.includes('json') ? pass() : fail('content-type.mismatch', type, 'answered ' + type, [exchange]);
    },
  }),
  defineCheck({
    id: 'probe.health-again',
    level: 'MUST',
    clause: '6',
    title: 'MUST answer a second health read as the first',
    appliesTo: (op) => op.key === 'GET /health',
    async run(op, ctx) {
      const { request } = await ctx.validRequest(op);
      const [a, b] = [await ctx.send(request, op), await ctx.send(request, op)];
      return a.status === b.status ? pass() : fail('answer.differs', b.status, 'answered ' + a.status + ' then ' + b.status, [a, b]);
    },
  }),
];
`;

let dir: string;
const module = () => path.join(dir, 'probe.mjs');

beforeAll(() => {
  // The user's project: their module beside the package, installed as npm would (a link to this repository).
  dir = mkdtempSync(path.join(os.tmpdir(), 'declared-family-'));
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(repoRoot, path.join(dir, 'node_modules', 'orchestration-api-conformance'));
  writeFileSync(module(), MODULE);
});

describe('a family declared by a check module', () => {
  test('is listed after the suite own checks, as docs/checks.md lists them', async () => {
    const listed = await runCli(['checks', '--markdown', '--check-modules', module()]);
    expect(listed.code).toBe(0);
    const builtIn = checkListMarkdown(BUILT_IN_CHECKS);
    // The rows of the table of checks: a check id (with its variant, for a check judged per case), then its level.
    const rows = (text: string) =>
      text.split('\n').filter((l) => /^\| `[a-z0-9]+\.[a-z0-9-]+(\[[^\]]*\])?` \| (MUST|SHOULD|MAY) \|/.test(l));
    expect(rows(builtIn)).toHaveLength(BUILT_IN_CHECKS.length);
    const added = rows(listed.stdout).filter((row) => !rows(builtIn).includes(row));
    expect(added).toHaveLength(2);
    expect(added[0]).toContain('`probe.exercised-json`');
    expect(added[1]).toContain('`probe.health-again`');
    expect(rows(listed.stdout).slice(0, -2)).toEqual(rows(builtIn));
  });

  test('is planned and judged under --budget beside a built-in family', async () => {
    const run = await runCli(['--check-modules', module()], {
      ...prefectTargetEnv(laneBaseUrl()),
      CONFORMANCE_BUDGET: '60',
      CONFORMANCE_FAMILIES: 'probe,versioning',
      CONFORMANCE_OPERATIONS: 'GET /health|GET /version|GET /flows/{id}|POST /flows/filter',
    });
    const results = run.results!;
    expect(results.timing?.timeBox).toMatchObject({ kind: 'budget', seconds: 60 });
    const probe = results.checks.filter((c) => c.family === 'probe');
    // The exercise-reading check on each GET, the other on /health; each judged (none "not exercised yet").
    expect(probe.map((c) => `${c.id} ${c.operation}`).sort()).toEqual([
      'probe.exercised-json GET /flows/{id}',
      'probe.exercised-json GET /health',
      'probe.exercised-json GET /version',
      'probe.health-again GET /health',
    ]);
    for (const c of probe) expect(c.status, `${c.id} ${c.operation}: ${c.message}`).toBe('passed');
    expect(results.checks.filter((c) => c.family === 'versioning').length).toBeGreaterThan(0);
    expect(results.errors ?? []).toEqual([]);
    expect(run.code).toBe(exitCodeOf(results));
  });

  test('that is not a declaration is bad input: one line, exit 2, before any server is asked', async () => {
    const bad = path.join(dir, 'bad.mjs');
    writeFileSync(bad, "export default [{ id: 'contract.mine' }];\n");
    const run = await runCli(['--check-modules', bad], { CONFORMANCE_BASE_URL: 'http://127.0.0.1:9/api' });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/check module .*bad\.mjs: its default export must be checks made by defineCheck/);
  });
});
