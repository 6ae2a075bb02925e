/** The promises of §4.1: each names checks the registry has, and docs/checks.md shows which holds each. */
import { describe, expect, test } from 'vitest';
import { PROMISES_4_1 } from '../../../src/checks/core/promises.js';
import { BUILT_IN_CHECKS } from '../../../src/checks/core/registry.js';
import { checkListMarkdown } from '../../../src/report/checkList.js';

describe('the promises of §4.1', () => {
  test('every check named as holding a promise is in the registry', () => {
    const ids = new Set(BUILT_IN_CHECKS.map((c) => c.id));
    for (const p of PROMISES_4_1) for (const id of p.heldBy) expect(ids, `${p.promise}: ${id}`).toContain(id);
  });

  test('every row of the spec table of §4.1 and both rules about GET have their promise', () => {
    const promised = PROMISES_4_1.map((p) => p.promise).join('\n');
    for (const shape of ['POST /collection`', 'GET /collection/:id', 'GET /collection`', 'DELETE', 'PUT', 'PATCH'])
      expect(promised).toContain(shape);
    expect(promised).toMatch(/rule 1: .*\nrule 2: /);
  });

  test('docs/checks.md has a row for each, with the checks that hold it', () => {
    const md = checkListMarkdown(BUILT_IN_CHECKS);
    for (const p of PROMISES_4_1) expect(md).toContain(`| ${p.promise} | \`${p.heldBy[0]}\``);
  });
});
