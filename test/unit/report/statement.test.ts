/** The conformance statement: each clause of the spec judged, not applicable, or not judged and why, from the verdicts alone. */
import { describe, expect, test } from 'vitest';
import { SPEC_CLAUSES, specClausesOf, UNJUDGED_CLAUSES } from '../../../src/checks/core/clauses.js';
import { BUILT_IN_CHECKS } from '../../../src/checks/core/registry.js';
import type { CheckResult } from '../../../src/report/results.js';
import { conformanceStatement, statementHtml, statementLines } from '../../../src/report/statement.js';
import { checkResult } from '../support.js';

const verdict = (check: string, status: CheckResult['status'], message?: string): CheckResult => {
  const c = BUILT_IN_CHECKS.find((x) => x.id === check)!;
  return { ...checkResult(status, c.level), id: check, check, clause: c.clause, family: c.family, message };
};

const standingOf = (statement: ReturnType<typeof conformanceStatement>, clause: string) =>
  statement.find((s) => s.clause === clause)!;

describe('conformanceStatement', () => {
  test('speaks of every clause of the spec, in its order', () => {
    const statement = conformanceStatement({ checks: [] });
    expect(statement.map((s) => s.clause)).toEqual([...SPEC_CLAUSES]);
  });

  test('a clause with a verdict of its checks is judged, with the counts of every verdict citing it', () => {
    const statement = conformanceStatement({
      checks: [
        verdict('filters.seed-example', 'passed'),
        verdict('filters.oracle', 'failed'),
        verdict('filters.oracle', 'xfail'),
      ],
    });
    expect(standingOf(statement, '4.3 rule 4')).toMatchObject({ standing: 'judged', counts: { passed: 1 } });
    expect(standingOf(statement, '4.3 rule 1')).toMatchObject({ standing: 'judged', counts: { failed: 1, xfail: 1 } });
  });

  test('a clause whose checks were all skipped is not judged, with the reason most of them gave', () => {
    const statement = conformanceStatement({
      checks: [
        verdict('auth.required', 'skipped', 'no credentials configured'),
        verdict('auth.wrong-refused', 'skipped', 'no credentials configured'),
        verdict('auth.right-accepted', 'skipped', 'the target asks for none'),
      ],
    });
    expect(standingOf(statement, '5')).toMatchObject({
      standing: 'not judged',
      why: 'no credentials configured (and 1 other reason(s))',
    });
  });

  test('a clause whose checks applied to no operation of the document does not apply; one the selection left out is not judged', () => {
    const statement = conformanceStatement({
      checks: [],
      notSelected: { operations: [], checks: ['versioning.current-accepted'] },
    });
    expect(standingOf(statement, '1 convention 4')).toMatchObject({
      standing: 'not applicable',
      why: 'the document has no operation its checks apply to (spec.no-needless-nesting)',
    });
    const versioning = BUILT_IN_CHECKS.filter((c) => specClausesOf(c.clause).includes('9')).map((c) => c.id);
    const scoped = conformanceStatement({ checks: [], notSelected: { operations: [], checks: versioning } });
    expect(standingOf(scoped, '9')).toMatchObject({
      standing: 'not judged',
      why: "the run's selection left out its checks",
    });
  });

  test('a clause no check cites says why, and every clause without a check has its reason written down', () => {
    const statement = conformanceStatement({ checks: [] });
    const uncited = statement.filter((s) => s.checks.length === 0);
    expect(uncited.map((s) => s.clause).sort()).toEqual(Object.keys(UNJUDGED_CLAUSES).sort());
    expect(standingOf(statement, '6')).toMatchObject({ standing: 'not judged', why: 'the spec shows no events' });
  });

  test('the terminal gives a line a clause, page one a row a clause', () => {
    const statement = conformanceStatement({ checks: [verdict('filters.seed-example', 'passed')] });
    const lines = statementLines(statement);
    expect(lines[0]).toBe(`conformance statement: 1 of ${SPEC_CLAUSES.length} clauses of the spec judged`);
    expect(lines).toHaveLength(SPEC_CLAUSES.length + 1);
    expect(lines.find((l) => l.includes('§4.3 rule 4'))).toMatch(/judged +1 passed/);
    expect(statementHtml(statement).match(/<tr class=/g)).toHaveLength(SPEC_CLAUSES.length);
  });
});
