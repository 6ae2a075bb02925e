/** The filter oracle and the operator meanings it rests on, as properties where they fit. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { evaluate, matches, type Corpus } from '../../../src/model/oracle.js';
import { judgeOrder } from '../../../src/checks/sorting/records.js';
import { filterModel } from '../../../src/model/filters.js';
import { buildModel } from '../../../src/model/model.js';
import {
  IGNORED,
  ilike,
  micros,
  prefectOperators as op,
  seedOperators,
} from '../../../src/model/profiles/operators.js';
import { referenceDoc } from '../support.js';

const semantics = { operators: op };

describe('operators', () => {
  test('like_ is a case-insensitive substring, with % and _ as ILIKE wildcards', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme-ascii' }),
        fc.string({ unit: 'grapheme-ascii', minLength: 1 }),
        fc.string({ unit: 'grapheme-ascii' }),
        (a, b, c) => {
          const probe = b.replace(/[%_]/g, 'x');
          expect(op.like_(`${a}${probe}${c}`.toUpperCase(), probe.toLowerCase())).toBe(true);
        },
      ),
      { seed: 3 },
    );
    expect(op.like_('d-1-1', 'd_1')).toBe(true);
    expect(op.like_('50%off', '%')).toBe(true);
    expect(op.like_('abc', '')).toBe(IGNORED);
    expect(op.like_(null, 'a')).toBe(false);
    expect(ilike('a_c').test('ABC')).toBe(true);
  });

  test('before_ and after_ are inclusive to the microsecond', () => {
    const t = '2026-11-21T10:00:00.123456Z';
    expect(op.before_(t, t)).toBe(true);
    expect(op.after_(t, t)).toBe(true);
    expect(op.before_(t, '2026-11-21T10:00:00.123455Z')).toBe(false);
    expect(op.after_(t, '2026-11-21T10:00:00.123457Z')).toBe(false);
    expect(op.before_(null, t)).toBe(false);
    fc.assert(
      fc.property(
        fc.date({ noInvalidDate: true, min: new Date(0) }),
        (d) => micros(d.toISOString()) === BigInt(d.getTime()) * 1000n,
      ),
    );
  });

  test('empty operands: any_ [] matches nothing; all_ [], not_any_ [] and like_ "" drop out', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(fc.string()), fc.constant(null)), (v) => {
        expect(op.any_(v, [])).toBe(false);
        expect(op.all_(v, [])).toBe(IGNORED);
        expect(op.not_any_(v, [])).toBe(IGNORED);
      }),
    );
  });

  test('tags: any_ intersects, all_ contains every value, is_null_ means empty', () => {
    expect(op.any_(['a', 'b'], ['b', 'z'])).toBe(true);
    expect(op.all_(['a', 'b'], ['a', 'b'])).toBe(true);
    expect(op.all_(['a'], ['a', 'b'])).toBe(false);
    expect(op.is_null_([], true)).toBe(true);
    expect(op.is_null_(['a'], false)).toBe(true);
  });

  test('the seed profile has no extensions', () => {
    expect(Object.keys(seedOperators).sort()).toEqual([
      'after_',
      'all_',
      'any_',
      'before_',
      'eq_',
      'exists_',
      'is_null_',
    ]);
  });
});

describe('oracle', () => {
  const corpus: Corpus = {
    flows: [
      { id: 'f1', name: 'Alpha', tags: ['a'] },
      { id: 'f2', name: 'alpha', tags: [] },
      { id: 'f3', name: 'd-1-1', tags: ['a', 'b'] },
    ],
    flow_runs: [
      { id: 'r1', flow_id: 'f1', state: { type: 'FAILED' } },
      { id: 'r2', flow_id: 'f3', state: { type: 'COMPLETED' } },
    ],
  };
  const model = filterModel(buildModel(referenceDoc()), buildModel(referenceDoc()).collections.get('/flows')!)!;

  test('AND of criteria, and a related collection through *_id', () => {
    expect([
      ...evaluate(model, semantics, corpus, {
        flows: { tags: { all_: ['a'] } },
        flow_runs: { state: { type: { any_: ['FAILED'] } } },
      }),
    ]).toEqual(['f1']);
    expect([...evaluate(model, semantics, corpus, { flow_runs: {} })]).toEqual(['f1', 'f3']);
  });

  test('an OR with a criterion that drops out is true (an SQL and_() of nothing)', () => {
    expect(
      matches(
        semantics,
        'flows',
        corpus.flows[1],
        { operator: 'or_', name: { like_: 'zzz' }, tags: { all_: [] } },
        corpus,
      ),
    ).toBe(true);
    expect(
      matches(
        semantics,
        'flows',
        corpus.flows[1],
        { operator: 'or_', name: { like_: 'zzz' }, tags: { all_: ['q'] } },
        corpus,
      ),
    ).toBe(false);
  });

  test('a field the document says the server ignores is no part of the filter, inside an OR too', () => {
    const ignoring = { operators: op, ignored: new Set(['deployments.concurrency_limit']) };
    const deployment = { id: 'd1', name: 'x', concurrency_limit: 5 };
    const filter = (criterion: object) => ({ operator: 'or_', id: { not_any_: ['d1'] }, concurrency_limit: criterion });
    // Without the ignored field the OR is "id not d1", which d1 fails, whatever the ignored field says.
    for (const criterion of [{ ge_: 0 }, { le_: 0 }, { is_null_: true }])
      expect(matches(ignoring, 'deployments', deployment, filter(criterion), {})).toBe(false);
    expect(matches(ignoring, 'deployments', deployment, { concurrency_limit: { le_: 0 } }, {})).toBe(true);
    expect(matches(semantics, 'deployments', deployment, filter({ ge_: 0 }), {})).toBe(true);
  });

  test('the document gives the filter model: fields, nested fields, operators, sort values', () => {
    expect(model.ownKey).toBe('flows');
    expect(Object.keys(model.filters)).toEqual(expect.arrayContaining(['flows', 'flow_runs', 'deployments']));
    const runFields = model.filters.flow_runs.fields.map((f) => f.path.join('.'));
    expect(runFields).toEqual(expect.arrayContaining(['state.type', 'tags', 'start_time']));
    expect(model.sort?.values).toContain('NAME_ASC');
  });
});

describe('sort judge', () => {
  test('a sorted list passes and a reversed one of distinct values fails', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer(), { minLength: 2 }), (xs) => {
        const sorted = [...xs].sort((a, b) => a - b);
        expect(judgeOrder(sorted, false).ok).toBe(true);
        expect(judgeOrder([...sorted].reverse(), false).ok).toBe(false);
        expect(judgeOrder([...sorted].reverse(), true).ok).toBe(true);
      }),
    );
  });

  test('null placement and collation are detected and reported, not failed', () => {
    expect(judgeOrder([null, null, 'a', 'b'], false)).toEqual({ ok: true, how: 'binary order, nulls first' });
    expect(judgeOrder(['a', 'b', null], false).how).toMatch(/nulls last/);
    expect(judgeOrder(['a', null, 'b'], false).ok).toBe(false);
    expect(judgeOrder(['alpha', 'Beta'], false).how).toMatch(/case-insensitive/);
  });
});
