import { describe, expect, test } from 'vitest';
import { BUILT_IN_REGISTRY } from '../../../src/checks/core/registry.js';
import type { Selection } from '../../../src/config/selection.js';
import { exerciseRead } from '../../../src/engine/judging.js';
import { freshJudgingState } from '../../../src/engine/judgingState.js';
import type { Session } from '../../../src/engine/session.js';
import type { Operation } from '../../../src/openapi/operations.js';

const operations = [
  { key: 'POST /flows/filter', method: 'POST', path: '/flows/filter' },
  { key: 'GET /flows/{id}', method: 'GET', path: '/flows/{id}' },
] as unknown as Operation[];

/** What exerciseRead looks at of a session: its checks, its selection, its (selected) operations, its judging state. */
const sessionSelecting = (selection: Selection, selected = operations) =>
  ({
    checks: BUILT_IN_REGISTRY,
    config: { selection },
    operations: selected,
    judging: freshJudgingState(),
  }) as unknown as Session;

describe('exerciseRead: whether a run exercises its operations', () => {
  test('a run of checks that send their own requests exercises none: no case it selected reads the exercise', () => {
    expect(exerciseRead(sessionSelecting({ checks: ['filters.oracle'] }))).toBe(false);
    expect(
      exerciseRead(sessionSelecting({ checks: ['pagination.*', 'methods.get-safe', 'errors.malformed-id'] })),
    ).toBe(false);
    expect(exerciseRead(sessionSelecting({ families: ['filters', 'sorting', 'spec'] }))).toBe(false);
  });

  test('a run with a check that reads the exercise, or with every check, exercises them', () => {
    expect(exerciseRead(sessionSelecting({ checks: ['filters.oracle', 'contract.no-5xx'] }))).toBe(true);
    expect(exerciseRead(sessionSelecting({ checks: ['errors.4xx-json'] }))).toBe(true);
    expect(exerciseRead(sessionSelecting({}))).toBe(true);
  });

  test('the cases of a check that reads the exercise, on no operation of the run, ask for none', () => {
    expect(exerciseRead(sessionSelecting({ checks: ['contract.no-5xx'] }, []))).toBe(false);
    expect(exerciseRead(sessionSelecting({ cases: ['contract.no-5xx GET /flows/{id}'] }))).toBe(true);
    expect(exerciseRead(sessionSelecting({ cases: ['contract.no-5xx DELETE /flows/{id}'] }))).toBe(false);
  });
});
