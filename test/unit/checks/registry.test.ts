/** The check registry: ids unique and stable in form, family = prefix, levels in titles, clauses known, and docs/checks.md current. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { FAMILIES, familyOf } from '../../../src/checks/check.js';
import { unknownClauseParts } from '../../../src/checks/clauses.js';
import { CHECKS } from '../../../src/checks/registry.js';
import { checkListMarkdown } from '../../../src/report/checkList.js';
import { repoRoot } from '../support.js';

describe('the check registry', () => {
  test('every id is unique and of the form <family>.<kebab-case name>', () => {
    const ids = CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z]+\.[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  test('every family is its id prefix, and every family has checks', () => {
    for (const c of CHECKS) expect(c.family, c.id).toBe(familyOf(c.id));
    expect(new Set(CHECKS.map((c) => c.family))).toEqual(new Set(FAMILIES));
  });

  test('every title starts with its level', () => {
    for (const c of CHECKS) expect(c.title.startsWith(`${c.level} `), c.id).toBe(true);
  });

  test('every clause names a section of the spec, the document, the profile or an RFC', () => {
    for (const c of CHECKS) expect(unknownClauseParts(c.clause), `${c.id}: ${c.clause}`).toEqual([]);
    expect(unknownClauseParts('4.9 rule 12; OpenAPI document')).toEqual(['4.9 rule 12']);
    expect(unknownClauseParts('a hunch')).toEqual(['a hunch']);
  });

  test('familyOf refuses an id without a known family', () => {
    expect(() => familyOf('style.anything')).toThrow(/does not start with a family/);
  });

  test("README's count of the checks and its table of the families are the registry's", () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    expect(readme).toContain(`all ${CHECKS.length} are`);
    const rows = [...readme.matchAll(/^\| `([a-z]+)` \|/gm)].map((m) => m[1]);
    expect(new Set(rows)).toEqual(new Set(FAMILIES));
  });

  test('docs/checks.md lists every check as the registry has it (npm run docs:checks writes it)', () => {
    const committed = readFileSync(path.join(repoRoot, 'docs', 'checks.md'), 'utf8');
    expect(committed).toBe(checkListMarkdown(CHECKS));
    for (const c of CHECKS) expect(committed).toContain(`\`${c.id}`);
  });
});
