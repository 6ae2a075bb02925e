import { describe, expect, test } from 'vitest';
import { exchangesPerCase } from '../../../src/bench/breakdown.js';

describe('exchangesPerCase', () => {
  test("a check's exchanges over its cases (variants are cases of their check); a check that sent nothing is left out", () => {
    const byCheck = {
      'filters.oracle': { exchanges: 636 },
      'sorting.each-value': { exchanges: 10 },
      exercise: { exchanges: 900 },
    };
    const checks = [
      { check: 'filters.oracle' },
      { check: 'filters.oracle' },
      { check: 'filters.oracle' },
      { check: 'sorting.each-value' },
      { check: 'sorting.each-value' },
      { check: 'sorting.each-value' },
      { check: 'contract.no-5xx' },
    ];
    expect(exchangesPerCase(byCheck, checks)).toEqual({ 'filters.oracle': 212, 'sorting.each-value': 3.33 });
  });
});
