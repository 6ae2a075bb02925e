/**
 * `baseline update`: keeps the entries whose failure showed, adds a keyed entry per new failure, drops
 * what the run judged and did not see fail, keeps what it did not judge, and rewrites old keyless entries.
 */
import { describe, expect, test } from 'vitest';
import { type LegacyEntry, replayId } from '../../../src/baseline/entries.js';
import { REASON_TO_WRITE, updatedBaseline } from '../../../src/report/baselineUpdate.js';
import type { CheckResult, FailureRecord } from '../../../src/report/results.js';

const failure = (kind: FailureRecord['kind'], key: string): FailureRecord => ({ kind, key, message: `${kind} ${key}` });

const check = (
  id: string,
  operation: string,
  status: CheckResult['status'],
  failures?: FailureRecord[],
): CheckResult => ({
  id,
  check: id,
  family: 'contract',
  level: 'MUST',
  clause: '',
  title: '',
  operation,
  collection: '',
  status,
  message: 'm',
  failures,
  evidence: [
    {
      request: { method: 'POST', url: 'http://x/api/flows/', headers: {}, body: '{}' },
      response: { status: 201, headers: {}, body: '{"id":1}', truncated: false },
      ms: 1,
      curl: '',
    },
  ],
});

const keyed = (e: Omit<LegacyEntry, 'reason'> & { reason?: string }): LegacyEntry => ({ reason: 'known', ...e });
const names = (entries: LegacyEntry[]) =>
  entries.map((e) => `${e.check} ${[e.operation].flat().join(',')}${e.kind ? ` ${e.kind} ${e.key}` : ''}`);

describe('updatedBaseline', () => {
  test('of two entries of one key, the one whose own replay was judged and did not show it is dropped', () => {
    const completed = { kind: 'generated', json: { state: { type: 'COMPLETED', data: 1 } } } as const;
    const deferred = { kind: 'generated', json: { state: { type: 'SCHEDULED', data: 1 } } } as const;
    const key = '500 generated {state}';
    const previous = {
      entries: [
        keyed({ check: 'a', operation: 'POST /x', kind: 'server-error', key, replay: completed, reason: 'completed' }),
        keyed({ check: 'a', operation: 'POST /x', kind: 'server-error', key, replay: deferred, reason: 'deferred' }),
      ],
    };
    const shown = { ...failure('server-error', key), replays: [replayId(deferred)] };
    const result = {
      ...check('a', 'POST /x', 'xfail', [shown]),
      replaysJudged: [replayId(completed), replayId(deferred)],
    };
    expect(updatedBaseline(previous, { checks: [result] }).entries.map((e) => e.reason)).toEqual(['deferred']);
  });

  test('keeps what still fails, adds new failures keyed, drops what now passes, keeps what was not judged', () => {
    const previous = {
      entries: [
        keyed({
          check: 'a',
          operation: 'POST /x',
          kind: 'server-error',
          key: '500 generated',
          replay: { kind: 'generated', json: {} },
        }),
        keyed({ check: 'b', operation: 'POST /y', kind: 'status.undocumented', key: '201' }),
        keyed({ check: 'c', operation: '*', kind: 'schema.mismatch', key: '422 /detail type' }),
        keyed({ check: 'd', operation: 'GET /z', kind: 'server-error', key: '500 recipe', onlyOn: 'postgres' }),
        keyed({ check: 'g', operation: 'GET /not-run', kind: 'server-error', key: '500 recipe' }),
        keyed({ check: 'h', operation: 'GET /skipped', kind: 'server-error', key: '500 recipe' }),
      ],
    };
    const updated = updatedBaseline(previous, {
      target: { baseUrl: '', openapi: '3.1.0', apiVersion: '', profile: 'prefect', label: 'prefect on sqlite' },
      checks: [
        check('a', 'POST /x', 'xfail', [failure('server-error', '500 generated')]),
        check('b', 'POST /y', 'xpass'),
        check('c', 'GET /1', 'xfail', [failure('schema.mismatch', '422 /detail type')]),
        check('e', 'POST /flows/', 'failed', [
          failure('status.undocumented', '201'),
          failure('schema.mismatch', '201 / type'),
        ]),
        check('f', 'GET /ok', 'passed'),
        check('h', 'GET /skipped', 'skipped'),
      ],
    });
    expect(names(updated.entries)).toEqual([
      'a POST /x server-error 500 generated',
      'c * schema.mismatch 422 /detail type',
      'd GET /z server-error 500 recipe',
      'g GET /not-run server-error 500 recipe',
      'h GET /skipped server-error 500 recipe',
      'e POST /flows/ status.undocumented 201',
      'e POST /flows/ schema.mismatch 201 / type',
    ]);
    expect(updated.entries[0].replay).toEqual({ kind: 'generated', json: {} });
    expect(updated.entries[5]).toMatchObject({
      reason: REASON_TO_WRITE,
      evidence: { request: 'POST http://x/api/flows/ {}', response: '201 {"id":1}' },
    });
  });

  test('an entry over a list loses the operations judged without its failure, and keeps those not judged', () => {
    const previous = {
      entries: [
        keyed({
          check: 'w',
          operation: ['POST /a', 'POST /b', 'POST /c', 'POST /d'],
          kind: 'input.accepted',
          key: '204',
        }),
        keyed({
          check: 'v',
          operation: ['POST /a', 'POST /b'],
          kind: 'input.accepted',
          key: '204',
          intermittent: true,
        }),
      ],
    };
    const shown = [failure('input.accepted', '204')];
    const updated = updatedBaseline(previous, {
      checks: [
        check('w', 'POST /a', 'failed', shown),
        check('w', 'POST /b', 'passed'),
        check('w', 'POST /c', 'failed', [failure('input.accepted', '200')]),
        check('v', 'POST /a', 'passed'),
        check('v', 'POST /b', 'passed'),
      ],
    });
    const w = updated.entries.find((e) => e.check === 'w')!;
    // /d was not judged: it stays; /b and /c were judged without this failure (/c fails otherwise, and gets its own entry).
    expect(w.operation).toEqual(['POST /a', 'POST /d']);
    expect(updated.entries.find((e) => e.check === 'v')!.operation).toEqual(['POST /a', 'POST /b']);
    expect(names(updated.entries)).toContain('w POST /c input.accepted 200');
  });

  test('a new failure of a baselined check on a baselined operation gets its own entry beside the old one', () => {
    const updated = updatedBaseline(
      { entries: [keyed({ check: 'a', operation: 'POST /deployments/', kind: 'status.undocumented', key: '201' })] },
      {
        checks: [
          check('a', 'POST /deployments/', 'failed', [
            failure('status.undocumented', '202'),
            failure('status.undocumented', '201'),
          ]),
        ],
      },
    );
    expect(names(updated.entries)).toEqual([
      'a POST /deployments/ status.undocumented 201',
      'a POST /deployments/ status.undocumented 202',
    ]);
  });

  test("the release is the run's, with its document's operations, where the run read it; else the file's stays", () => {
    const previous = { release: { version: '3.8.8', operations: ['GET /old'] }, entries: [] };
    const operations = [
      { method: 'POST', path: '/flows/', exercised: true, reached2xx: true, requests: 1 },
      { method: 'GET', path: '/admin/version', exercised: true, reached2xx: true, requests: 1 },
    ];
    const target = { baseUrl: '', openapi: '3.1.0', apiVersion: '0', profile: 'prefect', serverVersion: '3.8.7' };
    expect(updatedBaseline(previous, { checks: [], operations, target }).release).toEqual({
      version: '3.8.7',
      operations: ['GET /admin/version', 'POST /flows/'],
    });
    const unread = { ...target, serverVersion: undefined };
    expect(updatedBaseline(previous, { checks: [], operations, target: unread }).release).toEqual(previous.release);
  });

  test('a filtered run keeps every entry of the operations it did not run, and a `*` entry it did not see', () => {
    const previous = {
      entries: [
        keyed({ check: 'a', operation: 'POST /flows/', kind: 'status.undocumented', key: '201' }),
        keyed({ check: 'a', operation: 'POST /deployments/', kind: 'status.undocumented', key: '201' }),
        keyed({ check: 'c', operation: '*', kind: 'schema.mismatch', key: '422 /detail type' }),
      ],
    };
    const updated = updatedBaseline(previous, {
      selection: '^POST /flows/$',
      checks: [
        check('a', 'POST /flows/', 'xfail', [failure('status.undocumented', '201')]),
        check('c', 'POST /flows/', 'passed'),
      ],
    });
    expect(names(updated.entries)).toEqual(names(previous.entries));
  });

  test('an old keyless entry becomes one keyed entry per failure it excused, keeping its reason and evidence', () => {
    const previous = {
      entries: [
        { check: 'a', operation: 'POST /x', reason: 'old reason', evidence: { request: 'R', response: 'S' } },
        { check: 'c', operation: '*', reason: 'everywhere' },
        { check: 'k', operation: 'GET /other-db', reason: 'other database', onlyOn: 'postgres' },
      ],
    };
    const updated = updatedBaseline(previous, {
      target: { baseUrl: '', openapi: '3.1.0', apiVersion: '', profile: 'prefect', label: 'prefect on sqlite' },
      checks: [
        check('a', 'POST /x', 'failed', [
          failure('server-error', '500 generated'),
          failure('server-error', '500 recipe'),
        ]),
        check('c', 'GET /1', 'failed', [failure('schema.mismatch', '422 /detail type')]),
        check('c', 'GET /2', 'failed', [failure('schema.mismatch', '422 /detail type')]),
      ],
    });
    expect(names(updated.entries)).toEqual([
      'a POST /x server-error 500 generated',
      'a POST /x server-error 500 recipe',
      'c * schema.mismatch 422 /detail type',
      'k GET /other-db',
    ]);
    expect(updated.entries[1]).toMatchObject({ reason: 'old reason', evidence: { request: 'R', response: 'S' } });
  });
});
