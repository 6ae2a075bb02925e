/** One instant, another offset: the text changes, the instant does not (RFC 3339). */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { OFFSETS_MINUTES, sameInstantAt } from '../../../src/cases/instants.js';
import { micros } from '../../../src/model/profiles/operators.js';

describe('sameInstantAt', () => {
  test('writes the instant at the offset, the fraction of a second kept to the digit', () => {
    expect(sameInstantAt('2026-12-01T20:42:13.123456Z', 330)).toBe('2026-12-02T02:12:13.123456+05:30');
    expect(sameInstantAt('2026-12-01T20:42:13+02:00', -480)).toBe('2026-12-01T10:42:13-08:00');
    expect(sameInstantAt('2090-01-01T00:00:00.000Z', 840)).toBe('2090-01-01T14:00:00.000+14:00');
    expect(sameInstantAt('2026-12-01T20:42:13Z', -330)).toBe('2026-12-01T15:12:13-05:30');
  });

  test('answers nothing for a text that is no RFC 3339 date-time', () => {
    expect(sameInstantAt('2026-12-01', 60)).toBeUndefined();
    expect(sameInstantAt('not a time', 60)).toBeUndefined();
  });

  test('whatever the instant and the offset, the text names the same instant to the microsecond', () => {
    const instants = fc
      .tuple(
        fc.date({ min: new Date('1970-01-02T00:00:00Z'), max: new Date('2999-12-30T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: 0, max: 999_999 }),
      )
      .map(([d, us]) => `${d.toISOString().slice(0, 19)}.${String(us).padStart(6, '0')}Z`);
    fc.assert(
      fc.property(instants, fc.constantFrom(...OFFSETS_MINUTES, -720, 0, 45), (text, offset) => {
        expect(micros(sameInstantAt(text, offset))).toBe(micros(text));
      }),
    );
  });
});
