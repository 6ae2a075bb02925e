import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { PLANNING } from '../../../src/checks/core/planning.js';
import { BUILT_IN_CHECKS } from '../../../src/checks/core/registry.js';
import { repoRoot } from '../../support/runCli.js';

/** Every source file under src/checks, as a path relative to the repository. */
const checkSources = (dir = path.join(repoRoot, 'src', 'checks')): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? checkSources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );

describe("planning's figures are measured, not typed in", () => {
  test('no source under src/checks sets catches or exchangesPerCase: they come from planning.json alone', () => {
    const typed = checkSources().flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\b(catches|exchangesPerCase)\s*:\s*[\d.]/g)].map(
        (m) => `${path.relative(repoRoot, file)}: ${m[0]}`,
      ),
    );
    expect(typed).toEqual([]);
    for (const c of BUILT_IN_CHECKS) {
      expect(c.catches).toBe(PLANNING.catches[c.id]);
      expect(c.exchangesPerCase).toBe(PLANNING.exchangesPerCase[c.id]);
    }
  });

  test('planning.json names only checks that exist, with figures planning can use', () => {
    const ids = new Set<string>(BUILT_IN_CHECKS.map((c) => c.id));
    for (const figures of [PLANNING.catches, PLANNING.exchangesPerCase])
      for (const [id, n] of Object.entries(figures)) {
        expect(ids.has(id), id).toBe(true);
        expect(Number.isFinite(n) && n >= 0, `${id}: ${n}`).toBe(true);
      }
  });
});
