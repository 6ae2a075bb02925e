import { describe, expect, test } from 'vitest';
import { FAMILIES } from '../../../src/checks/check.js';
import { CHECKS } from '../../../src/checks/registry.js';
import { BUDGET_FAMILY_ORDER, byDetection, MUTANTS_CAUGHT } from '../../../src/run/detection.js';
import { contractMutants, gateMutants, queryMutants, verbMutants } from '../../mutants/registry.js';

describe('detection table', () => {
  test('counts, for every check, the mutants of the kill matrix that name it', () => {
    const counted: Record<string, number> = {};
    for (const m of [...contractMutants, ...verbMutants, ...queryMutants, ...gateMutants]) {
      const ids = new Set(m.killedBy.map((k) => k.split(' ')[0].replace(/\[.*$/, '')));
      for (const id of ids) counted[id] = (counted[id] ?? 0) + 1;
    }
    expect(MUTANTS_CAUGHT).toEqual(counted);
  });

  test('names only checks that exist, and orders every family', () => {
    const ids = new Set<string>(CHECKS.map((c) => c.id));
    for (const id of Object.keys(MUTANTS_CAUGHT)) expect(ids.has(id), id).toBe(true);
    expect([...BUDGET_FAMILY_ORDER].sort()).toEqual([...FAMILIES].sort());
  });

  test('byDetection puts the checks that catch the most first and keeps the order otherwise', () => {
    const cases = [
      'spec.plural-collections',
      'contract.no-5xx',
      'methods.405',
      'filters.oracle',
      'spec.snake-case-routes',
    ].map((id) => ({ check: { id } }));
    expect(byDetection(cases).map((c) => c.check.id)).toEqual([
      'filters.oracle',
      'contract.no-5xx',
      'methods.405',
      'spec.plural-collections',
      'spec.snake-case-routes',
    ]);
  });
});
