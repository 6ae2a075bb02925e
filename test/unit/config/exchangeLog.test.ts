/** The exchange log's format: shapes compared with nulls as wildcards, and masking of what differs between runs. */
import { describe, expect, test } from 'vitest';
import { masked, sameShape, shapeOf } from '../../../src/config/exchangeLog.js';

describe('shapes', () => {
  test('a null is no type: a nullable field null on one side and set on the other is the same shape; a changed type is not', () => {
    expect(sameShape(shapeOf({ a: null, b: 1 }), shapeOf({ a: 'x', b: 2 }))).toBe(true);
    expect(sameShape(shapeOf({ a: 'x' }), shapeOf({ a: 1 }))).toBe(false);
    expect(sameShape(shapeOf({ a: 'x' }), shapeOf({ a: 'x', extra: true }))).toBe(false);
    expect(sameShape(shapeOf([{ a: 'x' }, { a: 1 }]), shapeOf([{ a: 1 }, { a: 'x' }]))).toBe(true);
  });
});

describe('masked', () => {
  test('ids, times and the run tag are masked', () => {
    expect(masked('0aec1877-62e1-481a-8f39-a45a8ee3ebf8 at 2026-11-28T20:00:00Z by ctag-7', 'ctag')).toBe(
      '<uuid> at <time> by <run>-<n>',
    );
  });
});
