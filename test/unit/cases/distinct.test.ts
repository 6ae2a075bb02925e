import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { JudgedOnce } from '../../../src/cases/distinct.js';

describe('JudgedOnce', () => {
  test('judges each distinct key once, answers a repeat with the first outcome, and counts the repeats', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 30 }), async (keys) => {
        const judged = new JudgedOnce<string>();
        const calls: string[] = [];
        const outcomes = [];
        for (const [i, key] of keys.entries()) {
          const judge = async () => {
            calls.push(key);
            return `${key}@${i}`;
          };
          outcomes.push(await judged.outcome(key, judge));
        }
        expect(calls).toEqual([...new Set(keys)]);
        expect(judged.repeats).toBe(keys.length - calls.length);
        for (const [i, key] of keys.entries()) expect(outcomes[i]).toBe(`${key}@${keys.indexOf(key)}`);
      }),
    );
  });

  test('a judgement that throws is not remembered: the next draw of the key judges again', async () => {
    const judged = new JudgedOnce<boolean>();
    await expect(judged.outcome('k', () => Promise.reject(new Error('stopped')))).rejects.toThrow('stopped');
    await expect(judged.outcome('k', async () => true)).resolves.toBe(true);
    expect(judged.repeats).toBe(0);
  });
});
