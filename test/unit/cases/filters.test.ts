/**
 * Filter operands drawn from the corpus never depend on the run tag: the same seed draws the same
 * operands under two tags once the whole tag is masked, and no operand holds a piece of a tag.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { filterBodyArbitrary, filterCases, splitAtTag } from '../../../src/cases/filters.js';
import { coreFilterModel } from '../../../src/checks/core/queryContext.js';
import type { Corpus } from '../../../src/model/oracle.js';
import { prefectProfile } from '../../../src/model/profiles/prefect.js';
import { referenceModel } from '../checks/fake.js';

const SUFFIXES = ['Alpha', 'alpha', 'd_1', 'd-1-1', '50%off', 'Zeta'];

async function casesFor(runTag: string) {
  const model = await referenceModel();
  const fm = coreFilterModel(model, 'flows')!;
  const corpus: Corpus = {
    flows: SUFFIXES.map((s, i) => ({
      id: `00000000-0000-4000-8000-00000000000${i}`,
      name: `${runTag}-${s}`,
      tags: [],
    })),
  };
  return filterCases(model.doc, fm, prefectProfile.filterSemantics!, corpus, '2090-01-01T00:00:00.000Z', runTag);
}

async function operands(runTag: string, triple: string, seed: number): Promise<unknown[]> {
  const arb = (await casesFor(runTag)).triples.get(triple);
  expect(arb, triple).toBeDefined();
  return fc.sample(arb!, { seed, numRuns: 200 }).map((c) => c.operand);
}

const mask = (operands: unknown[], runTag: string) =>
  operands.map((o) => String(o).replace(new RegExp(runTag, 'gi'), '<tag>'));

describe('filter operands and the run tag', () => {
  // The reference document has startswith_ only on work queue names, outside the core collections.
  for (const triple of ['flows.name.like_'])
    test(`${triple}: two run tags, one seed, the same operands once the tag is masked`, async () => {
      const [a, b] = ['conformance-aaaaa-11111111', 'conformance-zz9-x'];
      const first = await operands(a, triple, 42);
      const second = await operands(b, triple, 42);
      expect(mask(first, a)).toEqual(mask(second, b));
      // A piece of a tag would not be masked: an operand that touches the tag's text holds all of it.
      for (const o of first.map(String)) if (o.includes('conformance')) expect(o).toContain(a);
    });

  test('the edge operands every run tries first: the same under two tags once the tag (in any case) is masked', async () => {
    const [a, b] = ['ctag', 'conformance-a-much-longer-run-tag'];
    const edges = async (tag: string) =>
      mask(
        (await casesFor(tag)).examples.filter((c) => c.operator === 'like_').map((c) => c.operand),
        tag,
      );
    const first = await edges(a);
    expect(first).toContain('<tag>');
    expect(first).toEqual(await edges(b));
  });

  test('splitAtTag: up to the end of the tag, and the rest', () => {
    expect(splitAtTag('conformance-x-1-Alpha', 'conformance-x-1')).toEqual({ head: 'conformance-x-1', rest: '-Alpha' });
    expect(splitAtTag('Alpha', 'conformance-x-1')).toEqual({ head: '', rest: 'Alpha' });
  });
});

describe('filter bodies', () => {
  test('anded: the same draws, never with `operator: or_`; without it, some draws combine with or_', async () => {
    const model = await referenceModel();
    const fm = coreFilterModel(model, 'flows')!;
    const cases = await casesFor('conformance-t1');
    const sample = (anded: boolean) =>
      fc.sample(filterBodyArbitrary(fm, cases, { anded }), { seed: 7, numRuns: 200 }).map((d) => d.body);
    const free = sample(false);
    const anded = sample(true);
    const withoutOr = free.map((b) => {
      const { operator: _, ...own } = (b.flows ?? {}) as Record<string, unknown>;
      return b.flows ? { ...b, flows: own } : b;
    });
    expect(free.some((b) => (b.flows as { operator?: string } | undefined)?.operator === 'or_')).toBe(true);
    expect(anded.some((b) => 'operator' in ((b.flows as object | undefined) ?? {}))).toBe(false);
    expect(anded).toEqual(withoutOr);
  });
});
