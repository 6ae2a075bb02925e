/** What explore keeps of its seeds: failures no entry excused and no earlier seed met, and what it writes of them. */
import { describe, expect, test } from 'vitest';
import {
  baselineDraft,
  exploreMarkdown,
  findingKey,
  knownFailures,
  newFindings,
  stillShown,
  unexcusedFailures,
} from '../../../src/report/explore.js';
import type { CheckResult } from '../../../src/report/results.js';

/** A check's result as results.json holds it, with the failures given (`baselined` where an entry excused one). */
function result(
  operation: string,
  failures: Array<{ kind: string; key: string; baselined?: boolean }>,
  extra: Partial<CheckResult> = {},
): CheckResult {
  const unexcused = failures.some((f) => !f.baselined);
  return {
    id: 'contract.no-5xx',
    check: 'contract.no-5xx',
    family: 'contract',
    level: 'MUST',
    clause: '4.1',
    clauseText: '',
    title: 'MUST answer without a server error',
    operation,
    status: failures.length ? (unexcused ? 'failed' : 'xfail') : 'passed',
    failures: failures.map((f) => ({ ...f, message: `${operation} answered 500` })) as CheckResult['failures'],
    evidence: [],
    ...extra,
  } as CheckResult;
}

describe('explore', () => {
  test('a failure is new once: not when a baseline entry excused it, nor when an earlier seed met it', () => {
    const seen = new Set<string>();
    const first = {
      seed: 7,
      checks: [
        result('POST /flows/', [{ kind: 'server-error', key: '500 edge:name' }], {
          seed: 7,
          replay: 'conformance replay r --check contract.no-5xx',
        }),
        result('POST /deployments/', [{ kind: 'server-error', key: '500 generated {paused}', baselined: true }]),
      ],
    };
    const found = newFindings(first, seen);
    expect(found.map(findingKey)).toEqual(['contract.no-5xx POST /flows/ server-error 500 edge:name']);
    expect(found[0]).toMatchObject({ seed: 7, replay: 'conformance replay r --check contract.no-5xx' });
    expect(knownFailures(first)).toBe(1);
    // The next seed meets it again, and one more on another operation.
    const second = {
      seed: 8,
      checks: [
        result('POST /flows/', [{ kind: 'server-error', key: '500 edge:name' }], { seed: 8 }),
        result('PATCH /flows/{id}', [{ kind: 'server-error', key: '500 generated {tags}' }], { seed: 8 }),
      ],
    };
    expect(newFindings(second, seen).map((f) => `${f.operation} ${f.seed}`)).toEqual(['PATCH /flows/{id} 8']);
    expect(unexcusedFailures(second)).toHaveLength(2);
  });

  test('the report says what is new, with what shows it again, apart from the known; the draft has an entry each', () => {
    const findings = newFindings(
      {
        seed: 3,
        checks: [
          result('POST /flows/', [{ kind: 'server-error', key: '500 edge:name' }], {
            seed: 3,
            replay: 'conformance replay x',
            repro: 'curl -sS -X POST "$BASE_URL/flows/" -d \'{"name":"a|b"}\'',
          }),
        ],
      },
      new Set(),
    );
    const seeds = [{ seed: 3, seconds: 40, requests: 2000, exitCode: 1, known: 5, found: findings.map(findingKey) }];
    const md = exploreMarkdown({ target: 'prefect 3.8.8 on sqlite', minutes: 10, seeds, findings });
    expect(md).toContain('# Explore: 1 new finding(s)');
    expect(md).toContain('| `contract.no-5xx` (MUST) | `server-error 500 edge:name` | POST /flows/ | 3 |');
    // A pipe inside a curl line is escaped, not a new column.
    expect(md).toContain('a\\|b');
    expect(md).toContain('5 failure(s) the baseline excused');
    expect(exploreMarkdown({ target: 't', minutes: 1, seeds: [], findings: [] })).toContain('# Explore: nothing new');
    expect(baselineDraft(findings).entries).toEqual([
      expect.objectContaining({
        check: 'contract.no-5xx',
        operation: 'POST /flows/',
        kind: 'server-error',
        key: '500 edge:name',
      }),
    ]);
    expect(baselineDraft(findings).entries[0].reason).toMatch(/^TO WRITE: found by explore, seed 3/);
  });

  test('a finding its replay did not show again is counted apart, marked intermittent in the draft, and alone sets no exit code', () => {
    const checks = [
      result('POST /flows/', [{ kind: 'server-error', key: '500 edge:name' }], { seed: 4 }),
      result('PATCH /flows/{id}', [{ kind: 'server-error', key: '500 generated {tags}' }], { seed: 4 }),
    ];
    const [shown, once] = newFindings({ seed: 4, checks }, new Set());
    shown.replayed = 'shown again';
    once.replayed = 'not shown again';
    expect([shown, once].map(stillShown)).toEqual([true, false]);
    // A finding whose replay judged nothing still counts: nothing said it was met once.
    expect(stillShown({ replayed: 'not judged' })).toBe(true);
    const seeds = [
      { seed: 4, seconds: 30, requests: 900, exitCode: 1, known: 0, found: [shown, once].map(findingKey) },
    ];
    const md = exploreMarkdown({ target: 't', minutes: 1, seeds, findings: [shown, once] });
    expect(md).toContain('# Explore: 2 new finding(s), 1 not shown again by its replay');
    expect(md).toContain('| PATCH /flows/{id} | 4 | PATCH /flows/{id} answered 500 | not shown again |');
    expect(baselineDraft([shown, once]).entries.map((e) => e.intermittent)).toEqual([
      undefined,
      'met once by explore (seed 4); its replay passed',
    ]);
  });
});
