/** The corpus read back: what counts as the same value, what moves by itself, and how a collection fared. */
import { describe, expect, test } from 'vitest';
import type { WrittenObject } from '../../../src/upgrade/corpus.js';
import { holds, movingFields, survival, type Snapshot } from '../../../src/upgrade/readBack.js';
import { excuseUpgrade } from '../../../src/upgrade/excused.js';
import { upgradeFailures, type UpgradeReport } from '../../../src/report/results.js';

const flow = (id: string): WrittenObject => ({
  collection: 'flows',
  id,
  byId: { template: '/flows/{id}', path: `/flows/${id}` },
  byFilter: { method: 'POST', path: '/flows/filter', body: {} },
});

describe('holds', () => {
  test('a date-time holds its instant whatever its offset or digits', () => {
    expect(holds('2026-06-01T12:00:00+00:00', '2026-06-01T12:00:00Z')).toBe(true);
    expect(holds('2026-06-01T12:00:00.120000+00:00', '2026-06-01T14:00:00.12+02:00')).toBe(true);
    expect(holds('2026-06-01T12:00:00.000001Z', '2026-06-01T12:00:00Z')).toBe(false);
  });

  test('an object holds every key it had (more are allowed), an array each item in order', () => {
    expect(holds({ a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [1, 2], d: 3 }, e: 4 })).toBe(true);
    expect(holds({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(holds([1, 2], [2, 1])).toBe(false);
    expect(holds('café', 'caf?')).toBe(false);
    expect(holds(null, null)).toBe(true);
  });

  test("a nested key the second release's document no longer has is dropped, not changed; one it has is a change", () => {
    const dropped: string[][] = [];
    const before = { policy: { retries: 1, retry_type: 'in_process' } };
    const after = { policy: { retries: 1 } };
    const has = (at: readonly string[]) => at.join('.') !== 'policy.retry_type';
    expect(holds(before, after, has, (at) => dropped.push(at))).toBe(true);
    expect(dropped).toEqual([['policy', 'retry_type']]);
    expect(holds(before, after, () => true)).toBe(false);
    expect(holds(before, after)).toBe(false);
  });
});

describe('survival', () => {
  const before: Snapshot = new Map([
    ['flows a', { byIdStatus: 200, listed: true, body: { id: 'a', name: 'n', tags: ['t'], updated: '1', gone: 1 } }],
    ['flows b', { byIdStatus: 200, listed: true, body: { id: 'b', name: 'm', tags: [], updated: '1' } }],
    ['flows c', { byIdStatus: 200, listed: true, body: { id: 'c', name: 'k', tags: [], updated: '1' } }],
  ]);

  test('a 404 by id is a loss, a field read back otherwise a change; updated and moving fields are masked', () => {
    const after: Snapshot = new Map([
      ['flows a', { byIdStatus: 200, listed: true, body: { id: 'a', name: 'n', tags: ['t'], updated: '2' } }],
      ['flows b', { byIdStatus: 200, listed: true, body: { id: 'b', name: 'M', tags: [], updated: '2' } }],
      ['flows c', { byIdStatus: 404, listed: false }],
    ]);
    const moving = movingFields(before, before);
    expect(moving.size).toBe(0);
    // `gone` is not in the second release's document: dropped, not a change.
    const [row] = survival([flow('a'), flow('b'), flow('c')], before, after, moving, (_template, at) =>
      ['id', 'name', 'tags', 'updated'].includes(at[0]),
    );
    expect(row).toMatchObject({ collection: 'flows', written: 3, readBack: 2, dropped: ['gone'] });
    expect(row.lost).toEqual([{ id: 'c', how: 'GET /flows/{id} answered 404; not listed by POST /flows/filter' }]);
    expect(row.changed).toEqual([{ id: 'b', field: 'name', before: 'm', after: 'M' }]);
    expect(row.masked.map((m) => m.field)).toEqual(['updated']);
  });

  test('a field that differs between two reads of the first release is masked and named', () => {
    const again: Snapshot = new Map([...before].map(([k, v]) => [k, { ...v, body: { ...v.body, tags: ['moved'] } }]));
    const moving = movingFields(before, again);
    expect([...(moving.get('flows') ?? [])]).toEqual(['tags']);
    const [row] = survival([flow('a')], again, again, moving, () => undefined);
    expect(row.dropped).toEqual([]);
    expect(row.changed).toEqual([]);
    expect(row.masked).toContainEqual({ field: 'tags', why: 'changed between two reads of the first release' });
  });

  test("an entry of the second release's baseline excuses the loss or change it names, and only that", () => {
    const report: UpgradeReport = {
      from: 'A',
      to: 'B',
      database: 'sqlite',
      migration: { command: 'x', seconds: 1 },
      absent: [],
      collections: [
        {
          collection: 'flows',
          written: 2,
          readBack: 1,
          lost: [{ id: 'c', how: '404' }],
          changed: [{ id: 'b', field: 'name', before: 'm', after: 'M' }],
          dropped: [],
          masked: [],
        },
      ],
    };
    expect(upgradeFailures(report)).toEqual({ lost: 1, changed: 1 });
    const entry = {
      check: 'upgrade.data-survives',
      operation: 'GET /flows/{id}',
      kind: 'upgrade.changed' as const,
      key: 'flows.name',
      reason: 'B upper-cases names',
    };
    const excused = excuseUpgrade(report, { entries: [entry] });
    expect(upgradeFailures(excused)).toEqual({ lost: 1, changed: 0 });
    expect(excused.collections[0].changed[0].excusedBy).toMatch(/B upper-cases names/);
    expect(upgradeFailures(excuseUpgrade(report, { entries: [{ ...entry, key: 'flows.tags' }] }))).toEqual({
      lost: 1,
      changed: 1,
    });
  });
});
