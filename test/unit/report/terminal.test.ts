/** The terminal's last line: the gate's verdict and its rule, the same the exit code, summary.md and page one give. */
import { describe, expect, test } from 'vitest';
import { exitCodeOf, targetHeading } from '../../../src/report/results.js';
import { terminalSummary, verdictLine } from '../../../src/report/terminal.js';
import { checkResult, resultsOf } from '../support.js';

describe('verdictLine', () => {
  test('a MUST failure: FAIL with exit 1 and the rule it broke', () => {
    const results = resultsOf([checkResult('passed'), checkResult('failed', 'MUST')]);
    expect(exitCodeOf(results)).toBe(1);
    expect(verdictLine(results)).toBe('FAIL (exit 1): 1 MUST check(s) failed outside the baseline');
  });

  test('only a SHOULD failure: PASS with exit 0, and the failure said to be reported, not gated', () => {
    const results = resultsOf([checkResult('passed'), checkResult('failed', 'SHOULD'), checkResult('xfail')]);
    expect(exitCodeOf(results)).toBe(0);
    expect(verdictLine(results)).toBe(
      'PASS (exit 0): every MUST check passed with the baseline applied; 1 SHOULD/MAY failure(s) are reported, not gated',
    );
  });

  test("the run's own errors fail it, each named", () => {
    const results = resultsOf([checkResult('passed')], { errors: ['cleanup could not delete 2 object(s)'] });
    expect(verdictLine(results)).toBe('FAIL (exit 1): cleanup could not delete 2 object(s)');
  });

  test('with --gate-should a SHOULD failure fails the run; a MAY one still does not', () => {
    const should = resultsOf([checkResult('passed'), checkResult('failed', 'SHOULD')], { gateShould: true });
    expect(exitCodeOf(should)).toBe(1);
    expect(verdictLine(should)).toBe('FAIL (exit 1): 1 MUST or SHOULD check(s) failed outside the baseline');
    const may = resultsOf([checkResult('passed'), checkResult('failed', 'MAY')], { gateShould: true });
    expect(verdictLine(may)).toBe(
      'PASS (exit 0): every MUST or SHOULD check passed with the baseline applied; 1 MAY failure(s) are reported, not gated',
    );
  });

  test('the heading names the server by its release where it is known, then the document', () => {
    const target = {
      baseUrl: 'http://x/api',
      openapi: '3.1.0',
      apiVersion: '0.1.0',
      title: 'Prefect REST API',
      profile: 'prefect',
    };
    expect(targetHeading(target)).toBe('Prefect REST API 0.1.0');
    expect(targetHeading({ ...target, serverVersion: '2.20.26' })).toBe(
      'prefect 2.20.26 (document: Prefect REST API 0.1.0)',
    );
    expect(
      targetHeading({
        ...target,
        serverVersion: '2.20.26',
        identity: { database: { name: 'postgres', how: 'probe' } },
      }),
    ).toBe('prefect 2.20.26 on postgres (document: Prefect REST API 0.1.0)');
  });

  test("cleanup says what the server made for the run's names apart from the ledger's objects", () => {
    const cleanup = {
      deleted: 12,
      alreadyGone: 0,
      failed: [],
      notDeletable: [],
      madeForNames: { by: ['POST /v2/concurrency_limits/decrement'], deleted: 9, kept: 1 },
    };
    expect(terminalSummary(resultsOf([checkResult('passed')], { cleanup }))).toContain(
      "  made by the server for the names the run sent (POST /v2/concurrency_limits/decrement): 9 deleted, 1 kept (not made by the run's requests)",
    );
  });

  test("the summary gives the skip reasons with their counts and the fix they name; read-only mode's in one line", () => {
    const skipped = (message: string, level: 'MUST' | 'MAY' = 'MUST') => ({
      ...checkResult('skipped', level),
      message,
    });
    const results = resultsOf([
      skipped('no credentials configured (CONFORMANCE_API_KEY or CONFORMANCE_AUTH_STRING)'),
      skipped('changes server settings: unsafe on a shared target (on a disposable target, --disposable runs it)'),
      skipped('changes server settings: unsafe on a shared target (on a disposable target, --disposable runs it)'),
      skipped('read-only mode: the operation changes state'),
      skipped('prerequisite missing: read-only mode: cannot create a flows fixture', 'MAY'),
      skipped('prerequisite missing: read-only mode: cannot create a flow_runs fixture'),
      checkResult('passed', 'SHOULD'),
    ]);
    const summary = terminalSummary(results).split('\n');
    expect(summary.slice(summary.indexOf('skipped, by reason:'))).toEqual(
      expect.arrayContaining([
        '      3  read-only mode: what needs a write is not judged (a run without --read-only judges it)',
        '      2  changes server settings: unsafe on a shared target (on a disposable target, --disposable runs it)',
        '      1  no credentials configured (CONFORMANCE_API_KEY or CONFORMANCE_AUTH_STRING)',
      ]),
    );
    // One order of levels, the strongest first, whatever order the checks came in.
    expect(
      summary.filter((line) => /^ {2}(MUST|SHOULD|MAY) /.test(line)).map((line) => line.trim().split(' ')[0]),
    ).toEqual(['MUST', 'SHOULD', 'MAY']);
  });
});
