import { describe, expect, test } from 'vitest';
import { type JunitOutcome, junitOutcomeOf, junitReport } from '../../../src/report/junit.js';
import type { CheckResult } from '../../../src/report/results.js';
import { checkResult, resultsOf } from '../support.js';

const named = (c: CheckResult, id: string, extra: Partial<CheckResult> = {}): CheckResult => ({
  ...c,
  id,
  check: id,
  ...extra,
});

describe('junitReport', () => {
  const checks = [
    named(checkResult('passed'), 'contract.a'),
    named(checkResult('failed', 'MUST'), 'contract.b', { message: 'answered 500' }),
    named(checkResult('failed', 'SHOULD'), 'contract.c', { message: 'answered 503 5 times' }),
    named(checkResult('xfail'), 'contract.d', {
      message: 'known',
      baseline: { reason: 'facts §5', excused: [], notShown: [] },
    }),
    named(checkResult('xpass'), 'contract.e', { message: 'did not show' }),
    named(checkResult('skipped', 'MAY'), 'auth.f', { family: 'auth', message: 'no credentials configured' }),
    named(checkResult('error'), 'contract.g', { message: 'the target refused connections' }),
  ];
  const xml = junitReport(resultsOf(checks));
  const testCase = (id: string) =>
    xml.match(new RegExp(`<testcase [^>]*name="${id.replace('.', '\\.')} [^"]*"[^>]*>(.*?)</testcase>`))![1];

  test('one test case per verdict, one suite per family, counts by outcome', () => {
    expect(xml.match(/<testcase /g)).toHaveLength(checks.length);
    expect(xml).toMatch(/<testsuites name="conformance" tests="7" failures="2" errors="1" skipped="2"/);
    expect(xml).toMatch(/<testsuite name="contract" tests="6" failures="2" errors="1" skipped="1"/);
    expect(xml).toMatch(/<testsuite name="auth" tests="1" failures="0" errors="0" skipped="1"/);
  });

  test('a failure the gate counts fails its case, typed by its level; a SHOULD one is a passing case with its warning', () => {
    expect(testCase('contract.b')).toMatch(/<failure type="MUST" message="\[MUST\] [^"]*answered 500"/);
    expect(testCase('contract.c')).not.toMatch(/<failure|<skipped|<error/);
    expect(testCase('contract.c')).toMatch(/<system-out>WARNING \[SHOULD\] [^<]*answered 503 5 times<\/system-out>/);
    expect(testCase('contract.c')).toContain('<property name="level" value="SHOULD"/>');
    expect(testCase('contract.c')).toContain('<property name="status" value="failed"/>');
    expect(testCase('contract.a')).not.toMatch(/<failure|<skipped|<error/);
  });

  test('with --gate-should a SHOULD failure fails its case too; a MAY one never does', () => {
    const may = named(checkResult('failed', 'MAY'), 'contract.m', { message: 'no upsert' });
    const gated = junitReport(resultsOf([...checks, may], { gateShould: true }));
    const inGated = (id: string) =>
      gated.match(new RegExp(`<testcase [^>]*name="${id.replace('.', '\\.')} [^"]*"[^>]*>(.*?)</testcase>`))![1];
    expect(inGated('contract.c')).toMatch(/<failure type="SHOULD" message="\[SHOULD\] [^"]*answered 503 5 times"/);
    expect(inGated('contract.m')).toMatch(/<system-out>WARNING \[MAY\]/);
    expect(gated).toMatch(/<testsuites name="conformance" tests="8" failures="3"/);
  });

  test('xfail is skipped with its baseline reason, xpass fails, error errs, and every skip says why', () => {
    expect(testCase('contract.d')).toMatch(
      /<skipped type="xfail" message="expected failure \(baseline: facts §5\): known"\/>/,
    );
    expect(testCase('contract.e')).toMatch(/<failure type="xpass" message="a baselined failure passed: did not show"/);
    expect(testCase('contract.g')).toMatch(/<error type="error" message="the target refused connections"\/>/);
    expect(testCase('auth.f')).toContain('<skipped message="no credentials configured"/>');
  });

  test('text is escaped, and characters XML cannot carry are dropped', () => {
    const odd = junitReport(
      resultsOf([named(checkResult('failed'), 'contract.x', { message: 'a <b> & "c" \u0001 \u001b[31m' })]),
    );
    expect(odd).toContain('a &lt;b&gt; &amp; &quot;c&quot;  [31m');
    for (const control of ['\u0001', '\u001b']) expect(odd).not.toContain(control);
  });

  test("the run's own errors are told apart from verdicts", () => {
    const withErrors = junitReport(resultsOf(checks, { errors: ['cleanup could not delete 1 object(s)'] }));
    expect(withErrors).toMatch(
      /<testsuite name="run" tests="0"[^>]*><system-err>cleanup could not delete 1 object\(s\)<\/system-err>/,
    );
    expect(withErrors.match(/<testcase /g)).toHaveLength(checks.length);
  });

  test.each<[CheckResult['status'], JunitOutcome, CheckResult['level'], boolean]>([
    ['passed', 'passed', 'MUST', false],
    ['failed', 'failure', 'MUST', false],
    ['failed', 'warning', 'SHOULD', false],
    ['failed', 'failure', 'SHOULD', true],
    ['failed', 'warning', 'MAY', true],
    ['xpass', 'failure', 'MAY', false],
    ['error', 'error', 'MUST', false],
    ['skipped', 'skipped', 'MUST', false],
    ['xfail', 'skipped', 'MUST', false],
  ])('%s is a JUnit %s (%s, --gate-should %s)', (status, outcome, level, gateShould) => {
    expect(junitOutcomeOf(status, level, gateShould)).toBe(outcome);
  });
});
