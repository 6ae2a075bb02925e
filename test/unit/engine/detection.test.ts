import { describe, expect, test } from 'vitest';
import { defineCheck, BUILT_IN_FAMILIES } from '../../../src/checks/core/check.js';
import { pass } from '../../../src/checks/core/verdict.js';
import { PLANNING, withPlanning } from '../../../src/checks/core/planning.js';
import { checkListMarkdown } from '../../../src/report/checkList.js';
import { BUILT_IN_CHECKS, BUILT_IN_REGISTRY } from '../../../src/checks/core/registry.js';
import {
  budgetFamilyOrder,
  budgetOrder,
  byDetection,
  EXERCISE_EXCHANGES,
  expectedExchanges,
  familySendsNothing,
} from '../../../src/engine/detection.js';
import type { Operation } from '../../../src/openapi/operations.js';
import { contractMutants, gateMutants, queryMutants, verbMutants } from '../../mutants/registry.js';
import { fakeContext, referenceModel } from '../checks/fake.js';
import { catchesOf } from '../../mutants/writeCatches.js';

describe('what checks declare for planning', () => {
  test("each check's catches are the mutants of the kill matrix that name it, and none has more (npx tsx test/mutants/writeCatches.ts writes them)", () => {
    const counted = catchesOf([...contractMutants, ...verbMutants, ...queryMutants, ...gateMutants]);
    expect(PLANNING.catches).toEqual(counted);
    const carried = Object.fromEntries(BUILT_IN_CHECKS.filter((c) => c.catches).map((c) => [c.id, c.catches]));
    expect(carried).toEqual(counted);
  });

  test('the families that send nothing first, those that read the exercise last, each family once', () => {
    const order = budgetFamilyOrder(BUILT_IN_REGISTRY);
    expect([...order].sort()).toEqual([...BUILT_IN_FAMILIES].sort());
    const place = (f: string) =>
      familySendsNothing(f, BUILT_IN_REGISTRY)
        ? 0
        : BUILT_IN_CHECKS.some((c) => c.family === f && c.reads === 'exercise')
          ? 2
          : 1;
    expect(order.map(place)).toEqual([...order.map(place)].sort((a, b) => a - b));
    expect(order[0]).toBe('spec');
    expect(order.slice(-2).sort()).toEqual(['contract', 'errors']);
  });

  test('byDetection puts the checks that catch the most first and keeps the order otherwise', () => {
    const cases = [
      'spec.plural-collections',
      'contract.no-5xx',
      'methods.405',
      'filters.oracle',
      'spec.snake-case-routes',
    ].map((id) => ({ check: BUILT_IN_CHECKS.find((c) => c.id === id)! }));
    // The most catches first; the spec checks catch as many as each other: the order they came in.
    const catches = (id: string) => BUILT_IN_CHECKS.find((c) => c.id === id)!.catches ?? 0;
    const expected = cases
      .map((c, i) => ({ id: c.check.id, i }))
      .sort((a, b) => catches(b.id) - catches(a.id) || a.i - b.i)
      .map((c) => c.id);
    expect(catches('spec.plural-collections')).toBe(catches('spec.snake-case-routes'));
    expect(catches('contract.no-5xx')).toBeGreaterThan(catches('methods.405'));
    expect(byDetection(cases).map((c) => c.check.id)).toEqual(expected);
    expect(expected.slice(-2)).toEqual(['spec.plural-collections', 'spec.snake-case-routes']);
  });

  test('a check that asks for the exercise of its operation declares it (reads: exercise); no other does', async () => {
    const { ctx } = await fakeContext();
    const asked = new Set<string>();
    let current = '';
    const exercised = {
      ...ctx,
      exchangesOf: (op: Operation) => {
        asked.add(current);
        return { op, sent: [] };
      },
    };
    const model = await referenceModel();
    for (const check of BUILT_IN_CHECKS)
      for (const op of model.operations.slice(0, 40)) {
        current = check.id;
        try {
          if (check.appliesTo(op, exercised)) await check.run(op, exercised);
        } catch {
          // A skip, or a scripted answer the check did not expect: only whether it asked matters here.
        }
      }
    const declared = BUILT_IN_CHECKS.filter((c) => c.reads === 'exercise').map((c) => c.id);
    expect([...asked].sort()).toEqual(declared.sort());
  });

  test('a check that declares it reads the document alone sends nothing and asks nothing of the target', async () => {
    const { ctx, sent } = await fakeContext();
    const asked: string[] = [];
    const refused = (what: string) => () => {
      asked.push(what);
      throw new Error(`${what} asked`);
    };
    const documentOnly = {
      ...ctx,
      exchangesOf: refused('exchangesOf'),
      corpus: refused('corpus'),
      object: refused('object'),
      validRequest: refused('validRequest'),
    };
    const model = await referenceModel();
    const readers = BUILT_IN_CHECKS.filter((c) => c.reads === 'document');
    expect(readers.length).toBeGreaterThan(0);
    for (const check of readers)
      for (const op of model.operations)
        if (check.appliesTo(op, documentOnly))
          for (const variant of check.variants?.(op, documentOnly) ?? [undefined])
            await check.run(op, documentOnly, variant);
    expect(sent).toEqual([]);
    expect(asked).toEqual([]);
  });

  test('budgetOrder: spec first, then catching checks (long ones, then core before the rest, by catches per exchange), then the rest, cheapest first', () => {
    const kase = (id: string, op: string) => ({
      check: BUILT_IN_CHECKS.find((c) => c.id === id)!,
      op,
      core: !op.includes('work_pools'),
    });
    const cases = [
      kase('methods.get-repeatable', 'GET /flows/{id}'),
      kase('aggregates.count-agrees', 'POST /flows/count'),
      kase('contract.no-5xx', 'POST /work_pools/'),
      kase('filters.oracle', 'POST /flows/filter'),
      kase('contract.no-5xx', 'GET /flows/{id}'),
      kase('spec.snake-case-routes', 'GET /flows/{id}'),
      kase('methods.405', 'GET /flows/{id}'),
      kase('methods.get-safe', 'GET /flows/{id}'),
      kase('contract.reaches-2xx', 'GET /flows/{id}'),
    ];
    const order = budgetOrder(cases, (c) => c.core).map((c) => `${c.check.id} ${c.op}`);
    expect(order).toEqual([
      'spec.snake-case-routes GET /flows/{id}',
      'filters.oracle POST /flows/filter', // 212 exchanges one after another: it starts at once
      'methods.405 GET /flows/{id}', // 2 caught for 1 exchange
      // 4 caught over its 2 cases, for 1 exchange and half the exercise (the other half is reaches-2xx's): 2 / 6.3
      'contract.no-5xx GET /flows/{id}',
      'methods.get-safe GET /flows/{id}', // 1 / 8
      'aggregates.count-agrees POST /flows/count', // 1 / 20
      'contract.no-5xx POST /work_pools/', // not a core collection
      'methods.get-repeatable GET /flows/{id}', // catches none, 3 exchanges
      'contract.reaches-2xx GET /flows/{id}', // catches none, 1 + 5.3 exchanges
    ]);
  });
});

describe('the exchanges a run expects to send', () => {
  const c = (id: string) => ({ check: BUILT_IN_CHECKS.find((x) => x.id === id)! });
  test("each case's usual cost, one for a check not listed, nothing more for a case that reads the exercise", () => {
    const cases = [
      c('filters.oracle'),
      c('pagination.windows'),
      c('sorting.by-value'),
      c('contract.no-5xx'),
      c('spec.snake-case-routes'),
    ];
    // sorting.by-value's as measured, or 1 where the bench saw it send nothing of its own.
    const sorting = c('sorting.by-value').check.exchangesPerCase ?? 1;
    expect(expectedExchanges(cases, 0)).toBe(
      Math.round(
        c('filters.oracle').check.exchangesPerCase! + c('pagination.windows').check.exchangesPerCase! + sorting,
      ),
    );
    expect(expectedExchanges([c('contract.no-5xx')], 10)).toBe(Math.round(10 * EXERCISE_EXCHANGES));
  });

  test('a check that reads the document alone sends nothing, however many its cases', () => {
    expect(c('spec.snake-case-routes').check.reads).toBe('document');
    expect(
      expectedExchanges(
        Array.from({ length: 187 }, () => c('spec.snake-case-routes')),
        0,
      ),
    ).toBe(0);
  });
});

describe('a check added through its record and what planning measured of it', () => {
  // Nothing but defineCheck and its figures: no table, no branch on its family. What was measured places it.
  const added = withPlanning(
    defineCheck({
      id: 'sorting.added-for-this-test',
      level: 'MUST',
      clause: '4.4',
      title: 'MUST be planned from what was measured of it',
      run: () => pass(),
    }),
    { catches: { 'sorting.added-for-this-test': 6 }, exchangesPerCase: { 'sorting.added-for-this-test': 2 } },
  );
  const kase = (check: (typeof BUILT_IN_CHECKS)[number], op: string) => ({ check, op });

  test('a time-boxed run plans it by what it catches for what it costs', () => {
    const of = (id: string) => BUILT_IN_CHECKS.find((c) => c.id === id)!;
    const cases = [
      kase(of('methods.get-repeatable'), 'GET /flows/{id}'),
      kase(of('methods.405'), 'GET /flows/{id}'),
      kase(added, 'POST /flows/filter'),
      kase(of('spec.snake-case-routes'), 'GET /flows/{id}'),
    ];
    const order = budgetOrder(cases, () => true).map((c) => c.check.id);
    // spec sends nothing; then 6 caught for 2 exchanges before methods.405's 2 for 1; get-repeatable catches none.
    expect(order).toEqual(['spec.snake-case-routes', added.id, 'methods.405', 'methods.get-repeatable']);
    expect(byDetection([kase(of('methods.405'), 'x'), kase(added, 'y')]).map((c) => c.check.id)).toEqual([
      added.id,
      'methods.405',
    ]);
    expect(expectedExchanges([kase(added, 'POST /flows/filter')], 0)).toBe(2);
  });

  test('the list of checks (docs/checks.md) names it in its family', () => {
    const markdown = checkListMarkdown([...BUILT_IN_CHECKS, added]);
    const sorting = markdown.slice(markdown.indexOf('## sorting'), markdown.indexOf('## pagination'));
    expect(sorting).toContain(`| \`${added.id}\` | MUST | 4.4 | MUST be planned from what was measured of it |`);
  });
});
