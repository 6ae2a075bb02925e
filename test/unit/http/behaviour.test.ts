/** The masked behaviour of an exchange, and the comparison of two runs built on it. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { maskRunTag, readExchangeLog, sameShape, type Behaviour } from '../../../src/config/exchangeLog.js';
import { behaviourOf, distanceSample, servedAnswerTimes } from '../../../src/http/behaviour.js';
import { normalizedBody } from '../../../src/http/client.js';
import { MAX_OVERLAP, Overlap, SETTLED } from '../../../src/http/pacing/overlap.js';
import { compareRuns } from '../../../src/report/compare.js';

const item = fc.record({
  id: fc.uuid(),
  created: fc
    .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  suffix: fc.constantFrom('a', 'B', 'c_1'),
  note: fc.option(fc.string(), { nil: null }),
  count: fc.integer(),
});
type Item = { id: string; created: string; suffix: string; note: string | null; count: number };

const served = (items: Item[], runTag: string) =>
  items.map((i) => ({ id: i.id, created: i.created, name: `${runTag}-${i.suffix}`, note: i.note, count: i.count }));

function exchange(items: Item[], runTag: string, ids: string[]): Behaviour {
  const body = JSON.stringify({ flows: { id: { any_: ids } }, sort: 'NAME_ASC' });
  return behaviourOf(
    { method: 'POST', template: '/flows/filter', pathAndQuery: '/flows/filter', body },
    { status: 200, ms: 5, json: served(items, runTag) },
    runTag,
  );
}

describe('behaviourOf', () => {
  test('ids, times and the run tag are masked: two runs of the same items behave alike', () => {
    fc.assert(
      fc.property(
        fc.array(item, { minLength: 1, maxLength: 8 }),
        fc.array(fc.uuid(), { minLength: 8, maxLength: 8 }),
        (items, freshIds) => {
          const again = items.map((i, n) => ({
            ...i,
            id: freshIds[n],
            created: new Date(Date.parse(i.created) + 3_600_000).toISOString(),
          }));
          const a = exchange(
            items,
            'conformance-aaaa-1111',
            items.map((i) => i.id),
          );
          const b = exchange(
            again,
            'conformance-bbbb-2222',
            again.map((i) => i.id),
          );
          expect(b.key).toBe(a.key);
          expect(b.items).toEqual(a.items);
          expect(sameShape(a.shape!, b.shape!)).toBe(true);
        },
      ),
    );
  });

  test('the run tag is masked in any case (a pattern operand carries it uppercased), and in a request body', () => {
    for (const tag of ['ctag', 'conformance-a-much-longer-run-tag'])
      expect(maskRunTag(`{"like_":"${tag.toUpperCase()}","name":"${tag}-1"}`, tag)).toBe(
        '{"like_":"<run>","name":"<run>-<n>"}',
      );
    // A fresh name a check changed keeps its mark, and loses its number as the name does.
    expect(maskRunTag('{"name":"ctag-320-patched","other":"ctag-g12-a"}', 'ctag')).toBe(
      '{"name":"<run>-<n>-patched","other":"<run>-g12-a"}',
    );
    // A name's long edge is padded to the schema's length: as many x as the tag leaves room for.
    const padded = (tag: string) => `${tag}-edge`.padEnd(255, 'x');
    expect(maskRunTag(padded('ctag'), 'ctag')).toBe(
      maskRunTag(padded('conformance-a-much-longer-run-tag'), 'conformance-a-much-longer-run-tag'),
    );
    expect(maskRunTag(`${padded('ctag')}-Grüße`, 'ctag')).toBe('<run>-edge<padding>-Grüße');
    // With its operation's mark (four hex digits) after "edge": kept, the padding masked; two marks stay apart.
    const marked = (tag: string, mark: string) => `${tag}-edge${mark}`.padEnd(255, 'x');
    expect(maskRunTag(marked('ctag', '3f0a'), 'ctag')).toBe('<run>-edge3f0a<padding>');
    expect(maskRunTag(marked('conformance-a-much-longer-run-tag', '3f0a'), 'conformance-a-much-longer-run-tag')).toBe(
      '<run>-edge3f0a<padding>',
    );
    expect(maskRunTag(marked('ctag', '3f0a'), 'ctag')).not.toBe(maskRunTag(marked('ctag', '77b1'), 'ctag'));
    // A fresh name's number depends on the order names were asked for; a generated name's comes from the seed.
    expect(maskRunTag('["ctag-7","ctag-12","ctag-g12-a","ctag-g3"]', 'ctag')).toBe(
      '["<run>-<n>","<run>-<n>","<run>-g12-a","<run>-g3"]',
    );
    expect(normalizedBody({ json: { name: { like_: 'CTAG' } } }, 'ctag')).toBe(
      normalizedBody(
        { json: { name: { like_: 'CONFORMANCE-A-MUCH-LONGER-RUN-TAG' } } },
        'conformance-a-much-longer-run-tag',
      ),
    );
  });
});

describe('compareRuns: behaviour', () => {
  const tag = 'conformance-aaaa-1111';
  const items: Item[] = [
    { id: '00000000-0000-4000-8000-000000000003', created: '2026-01-01T00:00:01Z', suffix: 'a', note: null, count: 1 },
    { id: '00000000-0000-4000-8000-000000000001', created: '2026-01-01T00:00:02Z', suffix: 'B', note: 'n', count: 2 },
    {
      id: '00000000-0000-4000-8000-000000000002',
      created: '2026-01-01T00:00:03Z',
      suffix: 'c_1',
      note: null,
      count: 3,
    },
  ];
  const ids = items.map((i) => i.id);

  test('the same items in another order is an order difference; a different status is a status difference', () => {
    const a = exchange(items, tag, ids);
    const b = exchange([items[1], items[0], items[2]], tag, ids);
    const c = compareRuns({ label: 'A', behaviours: [a] }, { label: 'B', behaviours: [b] });
    expect(c.behaviour!.differences.map((d) => d.kind)).toEqual(['order']);
    const failed = { ...a, status: 500, items: undefined, shape: undefined };
    expect(
      compareRuns({ label: 'A', behaviours: [a] }, { label: 'B', behaviours: [failed] }).behaviour!.differences.map(
        (d) => d.kind,
      ),
    ).toEqual(['status']);
  });

  test('an order that follows the ids (or the clock) on both sides is no difference: the ids differ, not the behaviour', () => {
    const byId = (list: Item[]) => [...list].sort((x, y) => x.id.localeCompare(y.id));
    const renumbered = items.map((i, n) => ({ ...i, id: `00000000-0000-4000-8000-00000000000${[2, 3, 1][n]}` }));
    const a = exchange(byId(items), tag, ids);
    const b = exchange(
      byId(renumbered),
      tag,
      renumbered.map((i) => i.id),
    );
    expect(a.items!.join()).not.toBe(b.items!.join());
    expect(
      compareRuns({ label: 'A', behaviours: [a] }, { label: 'B', behaviours: [b] }).behaviour!.differences,
    ).toEqual([]);
  });
});

describe('compareRuns: what is not a behaviour difference', () => {
  const tag = 'conformance-aaaa-1111';
  const answer = (json: unknown, status = 200) =>
    behaviourOf(
      { method: 'POST', template: '/artifacts/filter', pathAndQuery: '/artifacts/filter', body: '{"sort":"KEY_ASC"}' },
      { status, ms: 3, json },
      tag,
    );
  const diff = (a: ReturnType<typeof answer>[], b: ReturnType<typeof answer>[]) =>
    compareRuns({ label: 'A', behaviours: a }, { label: 'B', behaviours: b }).behaviour!.differences.map((d) => d.kind);

  test('items tied on the sort key (nulls together at one end) in another order', () => {
    const rows = [
      { key: null, data: 'x' },
      { key: null, data: 'y' },
      { key: 'a', data: 'z' },
      { key: 'b', data: 'w' },
    ];
    expect(diff([answer(rows)], [answer([rows[1], rows[0], rows[2], rows[3]])])).toEqual([]);
    // Not tied: the keys themselves out of order.
    expect(diff([answer(rows)], [answer([rows[0], rows[1], rows[3], rows[2]])])).toEqual(['order']);
    // Nulls at both ends follow no order.
    const scattered = [rows[0], rows[2], rows[3], rows[1]];
    expect(diff([answer(rows)], [answer(scattered)])).toEqual(['order']);
    // Nulls last rather than first (PostgreSQL against SQLite) is a difference.
    expect(diff([answer(rows)], [answer([rows[2], rows[3], rows[0], rows[1]])])).toEqual(['order']);
  });

  test('the same request sent more often on one side, answered alike; a status only one side gave is a difference', () => {
    expect(diff([answer([], 200)], [answer([], 200), answer([], 200)])).toEqual([]);
    expect(diff([answer([], 200)], [answer([], 200), answer(null, 404)])).toEqual(['status']);
    expect(diff([answer([], 200), answer(null, 404)], [answer([], 200), answer([], 200)])).toEqual(['status']);
  });
});

describe('servedAnswerTimes', () => {
  test('the answer times of the last exchanges the target served: not 503, 429 or no answer', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'log-')), 'exchanges.jsonl');
    const statuses = [200, 503, 201, 429, 0, 404, 500, 204];
    writeFileSync(
      file,
      statuses
        .map((s, i) => `${JSON.stringify({ k: 'k', q: 'q', m: i === 7 ? 'DELETE' : 'GET', t: '/x', s, ms: i })}\n`)
        .join(''),
    );
    const log = readExchangeLog(file);
    expect(servedAnswerTimes(log, 3)).toEqual([5, 6, 7]);
    expect(servedAnswerTimes(log, 100)).toEqual([0, 2, 5, 6, 7]);
    expect(servedAnswerTimes(log, 100, 'DELETE')).toEqual([7]);
    expect(servedAnswerTimes(readExchangeLog(`${file}.absent`), 3)).toEqual([]);
  });
});

describe('distanceSample', () => {
  const answered = (m: string, times: number[]): Behaviour[] =>
    times.map((ms) => ({ key: 'k', request: 'q', method: m, template: '/x', status: 200, ms }));
  /** `n` answer times from `from` ms up to (not including) `from + spread`. */
  const times = (n: number, from: number, spread: number) =>
    Array.from({ length: n }, (_, i) => from + ((i * 7) % spread));
  const overlapOf = (sample: number[]) => {
    const o = new Overlap();
    for (const ms of sample) o.observe(ms);
    return o.factor;
  };

  test("the method's own last answers and the fastest of all, where there are enough; else every answer", () => {
    const log = [
      ...answered('GET', [3]),
      ...answered('DELETE', times(300, 10, 5)),
      ...answered('POST', times(50, 20, 9)),
    ];
    expect(distanceSample(log, 256, 'DELETE')).toEqual([3, ...times(300, 10, 5).slice(-255)]);
    const few = [...answered('DELETE', times(SETTLED - 1, 10, 5)), ...answered('POST', times(50, 20, 9))];
    expect(distanceSample(few, 256, 'DELETE')).toEqual(servedAnswerTimes(few, 256));
  });

  test('a far run that ended on reads queued at the server: its deletes say how far the target is', () => {
    // 100 ms away: DELETEs served in 0-9 ms; the last reads waited up to 300 ms more in the server's queue.
    const log = [...answered('DELETE', times(64, 100, 10)), ...answered('POST', times(256, 105, 300))];
    expect(overlapOf(servedAnswerTimes(log, 256))).toBeLessThan(2);
    expect(overlapOf(distanceSample(log, 256, 'DELETE'))).toBe(MAX_OVERLAP);
  });

  test('a near server that serves its deletes in a steady time is still near', () => {
    // Reads in 1-3 ms, DELETEs in 8-9 ms: alone, the deletes would look like a far server's 8 ms of way.
    const log = [...answered('GET', times(200, 1, 3)), ...answered('DELETE', times(64, 8, 2))];
    expect(overlapOf(servedAnswerTimes(log, 256, 'DELETE'))).toBeGreaterThan(1);
    expect(overlapOf(distanceSample(log, 256, 'DELETE'))).toBe(1);
  });
});

describe('the exchange log of an earlier run', () => {
  test('reads with its one-letter field names spelled out', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'log-')), 'exchanges.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ k: 'h', q: 'GET /flows/', m: 'GET', t: '/flows/', s: 200, ms: 3, sh: 'o', it: ['x'], ord: ['id:asc'] })}\n`,
    );
    expect(readExchangeLog(file)).toEqual([
      {
        key: 'h',
        request: 'GET /flows/',
        method: 'GET',
        template: '/flows/',
        status: 200,
        ms: 3,
        shape: 'o',
        items: ['x'],
        orders: ['id:asc'],
      },
    ]);
  });
});
