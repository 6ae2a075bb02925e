/** The check registry: ids unique and stable in form, family = prefix, levels in titles, clauses known, and docs/checks.md current. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { BUILT_IN_FAMILIES, defineCheck, familyOf } from '../../../src/checks/core/check.js';
import { clauseLevels, levelOfClause, SPEC_CLAUSES, unknownClauseParts } from '../../../src/checks/core/clauses.js';
import {
  BUILT_IN_CHECKS,
  BUILT_IN_REGISTRY,
  checkRegistry,
  declaredChecks,
} from '../../../src/checks/core/registry.js';
import { pass } from '../../../src/checks/core/verdict.js';
import { UsageError } from '../../../src/config/errors.js';
import { checkListMarkdown } from '../../../src/report/checkList.js';
import { repoRoot } from '../support.js';

describe('the check registry', () => {
  test('every id is unique and of the form <family>.<kebab-case name>', () => {
    const ids = BUILT_IN_CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z]+\.[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  test('every family is its id prefix, and every family has checks', () => {
    for (const c of BUILT_IN_CHECKS) expect(c.family, c.id).toBe(familyOf(c.id));
    expect(new Set(BUILT_IN_CHECKS.map((c) => c.family))).toEqual(new Set(BUILT_IN_FAMILIES));
  });

  test('every title starts with its level', () => {
    for (const c of BUILT_IN_CHECKS) expect(c.title.startsWith(`${c.level} `), c.id).toBe(true);
  });

  test('every clause names a section of the spec, the document, the profile or an RFC', () => {
    for (const c of BUILT_IN_CHECKS) expect(unknownClauseParts(c.clause), `${c.id}: ${c.clause}`).toEqual([]);
    expect(unknownClauseParts('4.9 rule 12; OpenAPI document')).toEqual(['4.9 rule 12']);
    expect(unknownClauseParts('a hunch')).toEqual(['a hunch']);
  });

  test("every check's level is its source's: the level the clause's first source gives its rule, or the suite's where the clause says the sources leave it open, and why", () => {
    for (const c of BUILT_IN_CHECKS) {
      const source = levelOfClause(c.clause);
      expect(source, `${c.id}: ${c.clause}`).toBeDefined();
      if (source!.level === 'open') {
        expect(['SHOULD', 'MAY'], c.id).toContain(c.level);
        expect(source!.source.length, `${c.id}: the clause says why`).toBeGreaterThan(40);
      } else expect(`${c.id} ${c.level}`).toBe(`${c.id} ${source!.level}`);
    }
    // An RFC's MUST is a MUST (405 and its Allow header); the spec's "may" a MAY, its facts MUST.
    expect(levelOfClause('RFC 9110 §15.5.6; 4.1')).toEqual({ source: 'RFC 9110 §15.5.6', level: 'MUST' });
    expect(levelOfClause('RFC 9110 §9.1')?.level).toBe('SHOULD');
    expect(levelOfClause('4.1 rule 3')?.level).toBe('MAY');
    expect(levelOfClause('4.1 rule 1 (GET is idempotent); OpenAPI document')?.level).toBe('MUST');
    expect(levelOfClause('a hunch')).toBeUndefined();
  });

  test('every clause of the spec has a level and why (docs/checks.md), and a check citing it first has that level', () => {
    const levels = clauseLevels();
    expect(levels.map((l) => l.clause)).toEqual([...SPEC_CLAUSES]);
    for (const { clause, level, why } of levels) {
      expect(why.length, clause).toBeGreaterThan(20);
      if (level !== 'not judged') expect(levelOfClause(clause)?.level, clause).toBe(level);
    }
    // Convention 5 is about POST queries; the spec's conventions are facts of the API, its "avoided" a SHOULD.
    expect(levels.find((l) => l.clause === '1 convention 5')).toMatchObject({ level: 'MUST' });
    expect(levels.find((l) => l.clause === '1 convention 4')).toMatchObject({ level: 'SHOULD' });
    for (const c of BUILT_IN_CHECKS.filter((x) => x.clause.startsWith('1 convention 5')))
      expect(c.appliesTo?.({ method: 'GET' } as never, {} as never), c.id).toBe(false);
  });

  test('familyOf takes the prefix of an id of the one form, and refuses any other', () => {
    expect(familyOf('style.anything')).toBe('style');
    for (const id of ['style', 'Style.x', 'style.Any', 'style.a_b', '.x', 'style.'])
      expect(() => familyOf(id), id).toThrow(/is not <family>.<kebab-case name>/);
  });

  test("README's count of the checks and its table of the families are the registry's", () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    expect(readme).toContain(`all ${BUILT_IN_CHECKS.length} are`);
    const rows = [...readme.matchAll(/^\| `([a-z]+)` \|/gm)].map((m) => m[1]);
    expect(new Set(rows)).toEqual(new Set(BUILT_IN_FAMILIES));
  });

  test('docs/checks.md lists every check as the registry has it (npm run docs:checks writes it)', () => {
    const committed = readFileSync(path.join(repoRoot, 'docs', 'checks.md'), 'utf8');
    expect(committed).toBe(checkListMarkdown(BUILT_IN_CHECKS));
    for (const c of BUILT_IN_CHECKS) expect(committed).toContain(`\`${c.id}`);
  });
});

describe('checks declared by a module of the run', () => {
  const probe = (id: string, fields: Partial<Parameters<typeof defineCheck>[0]> = {}) =>
    defineCheck({
      id: id as `${string}.${string}`,
      level: 'MAY',
      clause: '6',
      title: 'MAY probe',
      run: () => pass(),
      ...fields,
    });

  test('join the run after the built-in ones, each family after the suite own, in declaration order', () => {
    const run = checkRegistry(declaredChecks([probe('zeta.one'), probe('alpha.one'), probe('zeta.two')], 'm.mjs'));
    expect(run.all.slice(0, BUILT_IN_CHECKS.length)).toEqual(BUILT_IN_CHECKS);
    expect(run.all.slice(BUILT_IN_CHECKS.length).map((c) => c.id)).toEqual(['zeta.one', 'alpha.one', 'zeta.two']);
    expect(run.families()).toEqual([...BUILT_IN_FAMILIES, 'zeta', 'alpha']);
    expect(run.declaredFamilies()).toEqual(['zeta', 'alpha']);
    expect(run.checksOf('zeta').map((c) => c.id)).toEqual(['zeta.one', 'zeta.two']);
    // A value of the run's: the suite's own registry is as it was.
    expect(BUILT_IN_REGISTRY.all).toBe(BUILT_IN_CHECKS);
    expect(BUILT_IN_REGISTRY.declaredFamilies()).toEqual([]);
  });

  test('are refused as bad input unless each is a declaration of a family of its own, once', () => {
    const refused = (value: unknown) => {
      try {
        declaredChecks(value, 'm.mjs');
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        return (e as Error).message;
      }
      throw new Error('declared');
    };
    expect(refused([])).toMatch(/declares no check/);
    expect(refused([{ id: 'beta.one' }])).toMatch(/must be checks made by defineCheck/);
    expect(refused([probe('contract.mine')])).toMatch(/in the suite's own family contract/);
    expect(refused([probe('beta.one', { title: 'MUST probe' })])).toMatch(/must start with its level \(MAY\)/);
    expect(refused([probe('beta.one'), probe('beta.one')])).toMatch(/declared twice/);
    expect(refused([{ ...probe('beta.one'), id: 'beta.One' }])).toMatch(/is not <family>.<kebab-case name>/);
  });
});

describe("docs/layout.md's checklists for adding a check and a family", () => {
  const layout = readFileSync(path.join(repoRoot, 'docs', 'layout.md'), 'utf8');
  const steps = layout.slice(layout.indexOf('Adding a check'), layout.indexOf('`suites/` holds one thin'));

  test('name the files every family has, and each exists for every family', () => {
    for (const named of [
      'src/checks/<family>/records.ts',
      'test/unit/checks/<family>.test.ts',
      'test/mutants/registry.ts',
      'test/mutants/writeCatches.ts',
      'npm run docs:checks',
      'BUILT_IN_FAMILIES',
      'src/checks/core/registry.ts',
      'suites/<family>.test.ts',
    ])
      expect(steps, named).toContain(named);
    const registry = readFileSync(path.join(repoRoot, 'src', 'checks', 'core', 'registry.ts'), 'utf8');
    for (const family of BUILT_IN_FAMILIES) {
      for (const file of [`src/checks/${family}/records.ts`, `suites/${family}.test.ts`])
        expect(existsSync(path.join(repoRoot, file)), file).toBe(true);
      const own = path.join(repoRoot, 'test', 'unit', 'checks', `${family}.test.ts`);
      const queries = readFileSync(path.join(repoRoot, 'test', 'unit', 'checks', 'queries.test.ts'), 'utf8');
      expect(existsSync(own) || queries.includes(`'${family}.`), `a unit test of ${family}`).toBe(true);
      expect(registry).toContain(`../${family}/records.js`);
      expect(readFileSync(path.join(repoRoot, 'suites', `${family}.test.ts`), 'utf8')).toContain(
        `registerSuite('${family}')`,
      );
    }
  });

  test('src/checks holds a folder per family and the framework in core/, nothing beside them; no file over 300 lines', () => {
    const entries = readdirSync(path.join(repoRoot, 'src', 'checks'), { withFileTypes: true });
    expect(entries.filter((e) => !e.isDirectory()).map((e) => e.name)).toEqual([]);
    expect(entries.map((e) => e.name).sort()).toEqual(['core', ...BUILT_IN_FAMILIES].sort());
    for (const e of entries)
      for (const file of readdirSync(path.join(repoRoot, 'src', 'checks', e.name))) {
        const text = readFileSync(path.join(repoRoot, 'src', 'checks', e.name, file), 'utf8');
        expect(text.split('\n').length, `${e.name}/${file}`).toBeLessThanOrEqual(300);
      }
  });

  test('each function a record names (run, appliesTo, prepare) is declared with a doc comment', () => {
    const sources = [...BUILT_IN_FAMILIES, 'core'].flatMap((dir) =>
      readdirSync(path.join(repoRoot, 'src', 'checks', dir))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => readFileSync(path.join(repoRoot, 'src', 'checks', dir, f), 'utf8')),
    );
    const named = new Set(
      BUILT_IN_FAMILIES.flatMap((family) => [
        ...readFileSync(path.join(repoRoot, 'src', 'checks', family, 'records.ts'), 'utf8').matchAll(
          /\b(?:run|appliesTo|prepare|variants|lane): ([A-Za-z]\w*)[,\n]/g,
        ),
      ]).map((m) => m[1]),
    );
    expect(named.size).toBeGreaterThan(30);
    const undocumented = [...named].filter((name) => {
      const declaration = new RegExp(
        `(^|\\n)([^\\n]*)\\n(?:export )?(?:async )?(?:function ${name}\\b|const ${name}\\b)`,
      );
      const found = sources.map((text) => declaration.exec(text)).find(Boolean);
      return !found?.[2].trimEnd().endsWith('*/');
    });
    expect(undocumented).toEqual([]);
  });
});
