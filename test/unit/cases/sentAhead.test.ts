import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { drawsOf, SentAhead } from '../../../src/cases/sentAhead.js';

describe('drawsOf', () => {
  test('gives exactly the values fc.check draws before shrinking, examples first, for any seed and count', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.tuple(fc.string(), fc.nat()), { maxLength: 3 }),
        async (seed, numRuns, examples) => {
          const drawn: Array<[string, number]> = [];
          const strings = fc.string();
          const nats = fc.nat();
          // Asynchronous, and failing on nothing: the draws do not depend on what the property does.
          const property = fc.asyncProperty(strings, nats, async (s, n) => {
            drawn.push([s, n]);
            await new Promise((r) => setTimeout(r, 0));
            return true;
          });
          const params = { seed, numRuns, examples };
          const ahead = drawsOf<[string, number]>([strings, nats], params);
          await fc.check(property, params);
          expect(ahead).toEqual(drawn);
        },
      ),
      { numRuns: 30 },
    );
  });

  test('a failing property draws a prefix of them, then shrinks', async () => {
    const drawn: number[] = [];
    const nats = fc.nat(1000);
    const property = fc.asyncProperty(nats, async (n) => {
      drawn.push(n);
      return n < 900;
    });
    const params = { seed: 7, numRuns: 100 };
    const ahead = drawsOf<[number]>([nats], params).map(([n]) => n);
    const result = await fc.check(property, params);
    expect(result.failed).toBe(true);
    const firstFailure = ahead.findIndex((n) => n >= 900);
    expect(drawn.slice(0, firstFailure + 1)).toEqual(ahead.slice(0, firstFailure + 1));
  });
});

describe('SentAhead', () => {
  test('sends each distinct key once, at once, and answers the property from what was sent', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 20 }), async (keys) => {
        const sent: string[] = [];
        const ahead = new SentAhead(
          keys.map((key) => ({
            key,
            send: async () => {
              sent.push(key);
              return `answer of ${key}`;
            },
          })),
        );
        // Sent before anything was asked.
        expect(sent).toEqual([...new Set(keys)]);
        for (const key of keys)
          await expect(ahead.answer(key, async () => 'sent late')).resolves.toBe(`answer of ${key}`);
        expect(sent).toEqual([...new Set(keys)]);
      }),
    );
  });

  test('a key not sent ahead (a value met while shrinking) is sent when asked; a draw with no request is passed over', async () => {
    const ahead = new SentAhead<string>([undefined, { key: 'a', send: async () => 'A' }]);
    await expect(ahead.answer('z', async () => 'Z now')).resolves.toBe('Z now');
    await expect(ahead.answer('a', async () => 'not this')).resolves.toBe('A');
  });

  test('a request that failed fails the property that takes it, and one no property takes is no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const ahead = new SentAhead<string>([
        { key: 'taken', send: () => Promise.reject(new Error('stopped sending')) },
        { key: 'never taken', send: () => Promise.reject(new Error('stopped sending')) },
      ]);
      await expect(ahead.answer('taken', async () => 'not this')).rejects.toThrow('stopped sending');
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
