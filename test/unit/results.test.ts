/** A run that judged nothing, or whose target never answered, cannot pass: the reasons the CLI adds to a run's errors. */
import { describe, expect, test } from 'vitest';
import { exitCodeOf, reasonsNothingCounts } from '../../src/report/results.js';
import { checkResult } from './support.js';

const result = checkResult;

describe('a run that cannot pass', () => {
  test('every check skipped or not judged: nothing was judged, and the exit code is 1', () => {
    const checks = [result('skipped'), result('error')];
    const reasons = reasonsNothingCounts({ checks }, [200]);
    expect(reasons).toEqual(['nothing was judged: all 2 check(s) were skipped or not judged']);
    expect(exitCodeOf({ checks, errors: reasons })).toBe(1);
    expect(reasonsNothingCounts({ checks: [] }, [])).toEqual([
      'nothing was judged: all 0 check(s) were skipped or not judged',
    ]);
  });

  test('a target that answered no request', () => {
    expect(reasonsNothingCounts({ checks: [result('passed')] }, [0, 0, 0])).toEqual([
      "the target never answered: none of the run's 3 request(s) got an answer",
    ]);
  });

  test('a run with a judged check and one answer counts', () => {
    for (const status of ['passed', 'failed', 'xfail', 'xpass'] as const)
      expect(reasonsNothingCounts({ checks: [result('skipped'), result(status)] }, [0, 404])).toEqual([]);
    // A run that sent nothing (the document's conventions only) is judged on those.
    expect(reasonsNothingCounts({ checks: [result('passed')] }, [])).toEqual([]);
  });
});
