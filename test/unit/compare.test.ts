/** compare's verdict diff: failures told apart by kind and key, other verdicts by their masked message. */
import { describe, expect, test } from 'vitest';
import { compareRuns, comparisonVerdict, targetName } from '../../src/report/compare.js';
import { compareHtml, compareMarkdown } from '../../src/report/compareReport.js';
import type { CheckResult, Results } from '../../src/report/results.js';
import { resultsOf } from './support.js';

const results = (checks: CheckResult[], runTag: string): Results => resultsOf(checks, { runTag });

const failed = (key: string, message: string): CheckResult => ({
  id: 'contract.no-5xx',
  check: 'contract.no-5xx',
  family: 'contract',
  level: 'MUST',
  clause: '4.1',
  title: 'MUST',
  operation: 'POST /flows/',
  collection: '/flows',
  status: 'xfail',
  message,
  kind: 'server-error',
  key,
  failures: [{ kind: 'server-error', key, message }],
  evidence: [],
});

const passed = (message: string): CheckResult => ({
  ...failed('', message),
  id: 'sorting.by-value[NAME_ASC]',
  status: 'passed',
  kind: undefined,
  key: undefined,
  failures: undefined,
});

function changes(a: CheckResult, b: CheckResult) {
  return compareRuns(
    { label: 'A', results: results([a], 'conformance-aaa-111') },
    { label: 'B', results: results([b], 'conformance-bbb-222') },
  ).verdicts!.changes.map((c) => c.kind);
}

describe('the verdict diff', () => {
  test('two failures of the same kind and key are the same, whatever their messages say', () => {
    expect(
      changes(
        failed('500 generated', '3 of 12 exchange(s): answered 500: boom'),
        failed('500 generated', '1 of 9 exchange(s): answered 500: other text'),
      ),
    ).toEqual([]);
  });

  test('a failure with another key is a different failure', () => {
    expect(changes(failed('500 generated', 'answered 500'), failed('502 generated', 'answered 502'))).toEqual([
      'same verdict, different failures',
    ]);
  });

  test('passing verdicts are compared by their messages, with numbers and ids masked', () => {
    expect(
      changes(passed('NAME_ASC: binary order, nulls first'), passed('NAME_ASC: binary order, nulls last')),
    ).toEqual(['same verdict, different message']);
    expect(changes(passed('12 exchange(s) checked'), passed('13 exchange(s) checked'))).toEqual([]);
  });
});

describe('the comparison reports open with their verdict', () => {
  const compared = (a: CheckResult, b: CheckResult) =>
    compareRuns(
      { label: 'A', results: results([a], 'conformance-aaa-111') },
      { label: 'B', results: results([b], 'conformance-bbb-222') },
    );

  test('a check that passed on A and fails on B: REGRESSED, in the first lines of both reports', () => {
    const c = compared(passed('ok'), { ...failed('500', 'boom'), id: passed('').id, status: 'failed' });
    expect(comparisonVerdict(c)).toMatch(
      /^REGRESSED: 0 breaking document change\(s\), 1 check\(s\) that passed on A fail on B/,
    );
    expect(compareMarkdown(c).split('\n').slice(0, 4).join('\n')).toContain(`**${comparisonVerdict(c)}**`);
    expect(compareHtml(c)).toMatch(/<p class="verdict bad" data-testid="verdict"><b>REGRESSED:/);
  });

  test('nothing changed: NO REGRESSION, and each empty section says so in one line, without an empty table', () => {
    const c = compared(passed('ok'), passed('ok'));
    expect(comparisonVerdict(c)).toMatch(/^NO REGRESSION: /);
    const html = compareHtml(c);
    expect(html).toContain('class="verdict good"');
    expect(html).toContain('no change');
    expect(html).not.toContain('data-testid="verdicts"');
    expect(compareMarkdown(c)).not.toContain('| change | check |');
  });
});

describe('a side of a comparison', () => {
  test('is named by its label, else by its URL and the release its server reported', () => {
    const base = resultsOf([]).target;
    expect(targetName({ ...base, label: 'prefect 3.4.25 on sqlite', serverVersion: '3.4.25' })).toBe(
      'prefect 3.4.25 on sqlite',
    );
    expect(targetName({ ...base, serverVersion: '3.0.11' })).toBe('http://x/api (server 3.0.11)');
    expect(targetName(base)).toBe('http://x/api');
    const c = compareRuns(
      { label: 'A', results: resultsOf([], { target: { ...base, serverVersion: '3.0.11' } }) },
      { label: 'B', results: resultsOf([], { target: { ...base, serverVersion: '3.4.25' } }) },
    );
    expect([c.a.target, c.b.target]).toEqual(['http://x/api (server 3.0.11)', 'http://x/api (server 3.4.25)']);
  });
});
