/** A name fitted to what a document admits: its pattern and its length, the distinct end kept. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { fitString } from '../../../src/openapi/fitString.js';

describe('fitString', () => {
  test('keeps a string the schema admits as it is', () => {
    expect(fitString('conformance-ab12-3', { pattern: '^[^/%&><]+$', maxLength: 100 })).toBe('conformance-ab12-3');
    expect(fitString('Any Name', {})).toBe('Any Name');
  });

  test('lowers it, then replaces what the pattern refuses, in that order', () => {
    expect(fitString('run-A', { pattern: '^[a-z0-9-]+$' })).toBe('run-a');
    expect(fitString('50%off', { pattern: '^[^/%&><]+$' })).toBe('50-off');
    expect(fitString('conformance-ab12-3', { pattern: '^[a-z0-9_]+$' })).toBe('conformance_ab12_3');
  });

  test('cuts from the front, so that the counter at the end stays', () => {
    expect(fitString('conformance-ab12-37', { maxLength: 6 })).toBe('b12-37');
  });

  test('gives up where no form fits, and on a pattern that is not a JavaScript one takes the string as it is', () => {
    expect(fitString('abc', { pattern: '^[0-9]+$' })).toBeUndefined();
    expect(fitString('abc', { pattern: '(?<' })).toBe('abc');
  });

  test('whatever it answers, the schema admits', () => {
    const schemas = fc.record(
      {
        pattern: fc.constantFrom('^[a-z0-9-]+$', '^[a-z0-9_]+$', '^[^/%&><]+$', '^[A-Za-z][A-Za-z0-9 ._-]*$'),
        maxLength: fc.integer({ min: 1, max: 40 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), schemas, (value, schema) => {
        const fitted = fitString(value, schema);
        if (fitted === undefined) return;
        if (schema.pattern) expect(fitted).toMatch(new RegExp(schema.pattern, 'u'));
        if (schema.maxLength !== undefined) expect(fitted.length).toBeLessThanOrEqual(schema.maxLength);
      }),
    );
  });
});
