/** compare's verdict diff: failures told apart by kind and key, other verdicts by their masked message. */
import { describe, expect, test } from 'vitest';
import { compareRuns, comparisonVerdict, targetName } from '../../../src/report/compare.js';
import { compareHtml, compareMarkdown } from '../../../src/report/compareReport.js';
import type { Behaviour } from '../../../src/config/exchangeLog.js';
import type { CheckResult, Results } from '../../../src/report/results.js';
import { resultsOf } from '../support.js';

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
    expect(comparisonVerdict(c)).toBe('REGRESSED: 1 check(s) that passed on A fail on B');
    expect(compareMarkdown(c).split('\n').slice(0, 4).join('\n')).toContain(`**${comparisonVerdict(c)}**`);
    expect(compareHtml(c)).toMatch(/<p class="verdict bad" data-testid="verdict"><b>REGRESSED:/);
  });

  test('nothing changed: NO REGRESSION, and each empty section says so in one line, without an empty table', () => {
    const c = compared(passed('ok'), passed('ok'));
    expect(comparisonVerdict(c)).toBe('NO REGRESSION: nothing changed');
    const html = compareHtml(c);
    expect(html).toContain('class="verdict good"');
    expect(html).toContain('no verdict changed');
    expect(html).not.toContain('data-testid="verdicts"');
    expect(compareMarkdown(c)).not.toContain('| change | check |');
  });
});

describe('the verdicts a comparison lists', () => {
  test('regressions and fixes in the table; checks that ran on one side only folded into a line', () => {
    const skippedA = { ...passed('ok'), status: 'skipped' as const, message: 'needs a key' };
    const c = compareRuns(
      { label: 'A', results: results([skippedA, { ...passed('ok'), id: 'y' }], 'conformance-aaa-111') },
      {
        label: 'B',
        results: results(
          [passed('ok'), { ...failed('500', 'boom'), id: 'y', status: 'failed' }],
          'conformance-bbb-222',
        ),
      },
    );
    const markdown = compareMarkdown(c);
    expect(markdown).toContain('| pass → fail | `y` |');
    expect(markdown).not.toContain('| skipped → ran |');
    expect(markdown).toContain(
      '2 checks on both sides; 1 pass → fail; judged on one side only (compare.json lists them): 1 skipped → ran',
    );
    expect(compareHtml(c)).toContain(
      '<details data-testid="verdicts-folded"><summary>judged on one side only: 1 skipped → ran',
    );
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

describe('two editions of one release', () => {
  const op = (key: string) => {
    const [method, path] = key.split(' ');
    return { method, path, exercised: true, reached2xx: true, requests: 1 };
  };
  const check = (operation: string, status: CheckResult['status'], message = '', id = 'contract.no-5xx') => ({
    ...passed(message),
    id,
    check: id,
    operation,
    status,
  });
  const side = (release: string | undefined, operations: string[], checks: CheckResult[]) =>
    resultsOf(checks, {
      runTag: 'conformance-x-1',
      operations: operations.map(op),
      target: {
        baseUrl: 'http://x/api',
        openapi: '3.1.0',
        apiVersion: '0',
        profile: 'prefect',
        ...(release ? { identity: { release: { version: release, from: 'GET /admin/version' } } } : { identity: {} }),
      },
    });
  const local = side(
    '3.8.8',
    ['GET /admin/version', 'POST /flows/'],
    [
      check('GET /admin/version', 'passed'),
      check(
        'POST /flows/',
        'skipped',
        'no credentials configured (CONFORMANCE_API_KEY or CONFORMANCE_AUTH_STRING)',
        'auth.required',
      ),
      check('POST /flows/', 'passed'),
    ],
  );
  const hosted = side(
    undefined,
    ['POST /flows/'],
    [check('POST /flows/', 'passed', 'answered 401', 'auth.required'), check('POST /flows/', 'passed')],
  );
  const drift = {
    a: { operations: 2 },
    b: { operations: 1 },
    changes: [
      {
        operation: 'GET /admin/version',
        where: 'GET /admin/version',
        kind: 'operation removed' as const,
        breaking: true,
      },
    ],
  };

  test('a route one side lacks is an edition difference, named, and not a regression', () => {
    const c = compareRuns({ label: 'local', results: local }, { label: 'hosted', results: hosted }, drift);
    expect(c.edition).toMatchObject({ onlyA: ['GET /admin/version'], onlyB: [], checksOnLacked: 1 });
    expect(c.edition!.why).toMatch(/A runs release 3\.8\.8, and the release of B could not be read/);
    expect(c.drift!.changes).toEqual([]);
    expect(comparisonVerdict(c)).toBe('NO REGRESSION: 1 route(s) B lacks (an edition difference)');
    expect(compareMarkdown(c)).toContain('- B lacks 1 route(s) A has: GET /admin/version');
  });

  test('checks one side skipped for its configuration are counted apart, not listed as changes', () => {
    const c = compareRuns({ label: 'local', results: local }, { label: 'hosted', results: hosted }, drift);
    expect(c.verdicts!.changes).toEqual([]);
    expect(c.edition!.configuration).toEqual([
      { side: 'A', reason: 'no credentials configured (CONFORMANCE_API_KEY or CONFORMANCE_AUTH_STRING)', checks: 1 },
    ]);
  });

  test('two releases, or two sides whose releases are unknown, are compared as releases: a route gone is breaking', () => {
    for (const release of ['3.9.0', undefined]) {
      const other = side(release, ['POST /flows/'], [check('POST /flows/', 'passed')]);
      const a = release ? local : side(undefined, ['GET /admin/version', 'POST /flows/'], []);
      const c = compareRuns({ label: 'A', results: a }, { label: 'B', results: other }, drift);
      expect(c.edition).toBeUndefined();
      expect(comparisonVerdict(c)).toMatch(/^REGRESSED: 1 breaking document change/);
    }
  });
});

describe('the behaviour diff', () => {
  const answer = (s: number): Behaviour => ({
    key: 'GET /flows/{id} 1',
    request: 'GET /flows/<id>',
    method: 'GET',
    template: '/flows/{id}',
    status: s,
    ms: 1,
  });
  const differences = (a: number[], b: number[]) =>
    compareRuns({ label: 'A', behaviours: a.map(answer) }, { label: 'B', behaviours: b.map(answer) }).behaviour!
      .differences;

  test('the same request sent more often on one side, answered alike, is no difference (200 against 200, 200)', () => {
    expect(differences([200], [200, 200])).toEqual([]);
  });

  test('a status one side answered and the other never did is one, whatever the counts', () => {
    expect(differences([200], [200, 500])).toMatchObject([{ kind: 'status', a: '200', b: '200, 500' }]);
    expect(differences([200, 404], [200, 200])).toMatchObject([{ kind: 'status', a: '200, 404', b: '200, 200' }]);
  });

  test('requests racing on purpose are left out: which of the two won is chance, and their check judges the race', () => {
    const racing = (s: number): Behaviour => ({
      ...answer(s),
      key: 'POST /flows/ racing',
      request: 'POST /flows/ [racing] {}',
    });
    const side = (label: string, statuses: number[]) => ({ label, behaviours: statuses.map(racing) });
    expect(compareRuns(side('A', [200, 201]), side('B', [200, 200])).behaviour!.differences).toEqual([]);
  });
});
