/**
 * junit.xml, written from results.json so that it holds exactly its verdicts, and agrees with the gate: one
 * test case per verdict, one test suite per family. A failure the gate counts (a MUST's, a SHOULD's with
 * --gate-should) fails its case, with the level as the failure's type. One it does not count (SHOULD, MAY)
 * is a warning: JUnit has none, so the case passes and its `system-out` starts with `WARNING [SHOULD]`,
 * with the property `status=failed` (the convention of linters' JUnit reports, which keep warnings out of
 * the failure count): a CI widget is not red on a green job, and the failure is still on the case. As
 * pytest writes them, an expected failure (xfail) is a skipped case of type `xfail`; an xpass is a failure;
 * a check the target stopped answering for is an error. Every skipped case carries its reason.
 */
import { type CheckResult, gates, type Results } from './results.js';

const xml = (text: string): string =>
  text
    // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what XML 1.0 cannot carry, even escaped
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/** The JUnit outcome of a verdict: the element inside its test case, if any. */
export type JunitOutcome = 'passed' | 'warning' | 'failure' | 'error' | 'skipped';

/** The JUnit outcome of a verdict of this level, under the gate's rule (`gateShould`: --gate-should). */
export function junitOutcomeOf(
  status: CheckResult['status'],
  level: CheckResult['level'] = 'MUST',
  gateShould = false,
): JunitOutcome {
  switch (status) {
    case 'passed':
      return 'passed';
    case 'failed':
      return gates(level, gateShould) ? 'failure' : 'warning';
    case 'xpass':
      return 'failure';
    case 'error':
      return 'error';
    case 'skipped':
    case 'xfail':
      return 'skipped';
  }
}

function outcomeElement(c: CheckResult, gateShould: boolean): string {
  const message = c.message ?? '';
  const details = [message, c.repro, c.baseline ? `baseline: ${c.baseline.reason}` : undefined]
    .filter(Boolean)
    .join('\n');
  switch (c.status) {
    case 'passed':
      return '';
    case 'failed':
      if (!gates(c.level, gateShould))
        return `<system-out>${xml(`WARNING [${c.level}] ${c.title}: ${details}`)}</system-out>`;
      return `<failure type="${c.level}" message="${xml(`[${c.level}] ${c.title}: ${message}`)}">${xml(details)}</failure>`;
    case 'xpass':
      return `<failure type="xpass" message="${xml(`a baselined failure passed: ${message}`)}">${xml(details)}</failure>`;
    case 'error':
      return `<error type="error" message="${xml(message)}"/>`;
    case 'xfail':
      return `<skipped type="xfail" message="${xml(`expected failure (baseline: ${c.baseline?.reason ?? ''}): ${message}`)}"/>`;
    case 'skipped':
      return `<skipped message="${xml(message || 'not judged')}"/>`;
  }
}

function testCase(c: CheckResult, gateShould: boolean): string {
  const properties = [
    ['level', c.level],
    ['status', c.status],
    ['check', c.check],
    ['operation', c.operation],
    ['clause', c.clause],
    ...(c.kind ? [['kind', c.kind]] : []),
  ]
    .map(([name, value]) => `<property name="${name}" value="${xml(String(value))}"/>`)
    .join('');
  const time = ((c.ms ?? 0) / 1000).toFixed(3);
  return `    <testcase classname="${xml(`${c.family}.${c.collection}`)}" name="${xml(`${c.id} ${c.operation}`)}" time="${time}"><properties>${properties}</properties>${outcomeElement(c, gateShould)}</testcase>`;
}

function counts(checks: CheckResult[], gateShould: boolean): string {
  const of = (o: JunitOutcome) => checks.filter((c) => junitOutcomeOf(c.status, c.level, gateShould) === o).length;
  const time = checks.reduce((t, c) => t + (c.ms ?? 0), 0) / 1000;
  return `tests="${checks.length}" failures="${of('failure')}" errors="${of('error')}" skipped="${of('skipped')}" time="${time.toFixed(3)}"`;
}

export function junitReport(results: Results): string {
  const gateShould = results.gateShould ?? false;
  const families = new Map<string, CheckResult[]>();
  for (const c of results.checks) families.set(c.family, [...(families.get(c.family) ?? []), c]);
  const suites = [...families].map(
    ([family, checks]) =>
      `  <testsuite name="${xml(family)}" ${counts(checks, gateShould)} timestamp="${xml(results.startedAt)}">\n${checks.map((c) => testCase(c, gateShould)).join('\n')}\n  </testsuite>`,
  );
  // Errors of the run itself (cleanup, a target that never answered, an expired entry) are no verdict.
  if (results.errors?.length)
    suites.push(
      `  <testsuite name="run" tests="0" failures="0" errors="0" skipped="0"><system-err>${xml(results.errors.join('\n'))}</system-err></testsuite>`,
    );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="conformance" ${counts(results.checks, gateShould)}>\n${suites.join('\n')}\n</testsuites>\n`;
}
