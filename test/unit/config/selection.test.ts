/** Selection of operations and checks: include and exclude, by expression, tag, method, id glob and family. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { BUILT_IN_CHECKS } from '../../../src/checks/core/registry.js';
import {
  globMatches,
  narrowsChecks,
  type Selection,
  selectionFrom,
  selectsCheck,
  selectsOperation,
} from '../../../src/config/selection.js';

const op = (key: string, tags: string[] = []) => ({ key, method: key.split(' ')[0], tags });

describe('selection', () => {
  test('nothing set selects everything, and says nothing', () => {
    const s = selectionFrom({});
    expect(s).toEqual({});
    expect(selectsOperation(s, op('GET /flows/{id}'))).toBe(true);
    expect(selectsCheck(s, { id: 'contract.available', family: 'contract' })).toBe(true);
  });

  test('operations by expression, tag and method, each to include or exclude', () => {
    const s = selectionFrom({
      CONFORMANCE_OPERATIONS: '/flows',
      CONFORMANCE_EXCLUDE_OPERATIONS: '/filter$',
      CONFORMANCE_TAGS: 'Flows, Flow Runs',
      CONFORMANCE_EXCLUDE_TAGS: 'UI',
      CONFORMANCE_METHODS: 'get,post',
      CONFORMANCE_EXCLUDE_METHODS: 'DELETE',
    });
    expect(selectsOperation(s, op('GET /flows/{id}', ['Flows']))).toBe(true);
    expect(selectsOperation(s, op('POST /flows/filter', ['Flows']))).toBe(false); // excluded expression
    expect(selectsOperation(s, op('GET /flows/{id}', ['Variables']))).toBe(false); // no included tag
    expect(selectsOperation(s, op('POST /ui/flows/count-deployments', ['Flows', 'UI']))).toBe(false);
    expect(selectsOperation(s, op('PATCH /flows/{id}', ['Flows']))).toBe(false); // not an included method
    expect(selectsOperation(s, op('DELETE /flows/{id}', ['Flows']))).toBe(false);
  });

  test('checks by id, glob and family', () => {
    const s = selectionFrom({
      CONFORMANCE_FAMILIES: 'contract,filters',
      CONFORMANCE_EXCLUDE_CHECKS: 'contract.available,*.oracle',
    });
    expect(selectsCheck(s, { id: 'contract.response-schema', family: 'contract' })).toBe(true);
    expect(selectsCheck(s, { id: 'contract.available', family: 'contract' })).toBe(false);
    expect(selectsCheck(s, { id: 'filters.oracle', family: 'filters' })).toBe(false);
    expect(selectsCheck(s, { id: 'sorting.order', family: 'sorting' })).toBe(false);
    const only = selectionFrom({ CONFORMANCE_CHECKS: 'sorting.*', CONFORMANCE_EXCLUDE_FAMILIES: 'contract' });
    expect(selectsCheck(only, { id: 'sorting.order', family: 'sorting' })).toBe(true);
    expect(selectsCheck(only, { id: 'contract.available', family: 'contract' })).toBe(false);
  });

  test('a selection that narrows no check selects every check of the registry (the CLI asks the target without counting them)', () => {
    const items = fc.array(fc.constantFrom('contract', 'filters', 'contract.*', 'filters.oracle', 'x'), {
      minLength: 1,
    });
    const selection: fc.Arbitrary<Selection> = fc.record(
      {
        operations: fc.constantFrom('/flows', '^GET'),
        tags: items,
        methods: fc.constant(['GET']),
        cases: fc.constant(['contract.available GET /flows/{id}']),
        checks: items,
        excludeChecks: items,
        families: items,
        excludeFamilies: items,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(selection, (s) => {
        if (!narrowsChecks(s)) expect(BUILT_IN_CHECKS.every((c) => selectsCheck(s, c))).toBe(true);
        else
          expect(Object.keys(s)).toEqual(
            expect.arrayContaining([expect.stringMatching(/cases|[cC]hecks|[fF]amilies/)]),
          );
      }),
    );
    // And one that narrows them may leave every check out: those are counted before the target is asked.
    const none = selectionFrom({ CONFORMANCE_CHECKS: 'no.such-check' });
    expect(narrowsChecks(none)).toBe(true);
    expect(BUILT_IN_CHECKS.some((c) => selectsCheck(none, c))).toBe(false);
  });

  test('a glob is literal but for *', () => {
    expect(globMatches('contract.*', 'contract.available')).toBe(true);
    expect(globMatches('contract.*', 'contractXavailable')).toBe(false);
    expect(globMatches('*.oracle', 'filters.oracle')).toBe(true);
    fc.assert(
      fc.property(fc.string(), (id) => {
        expect(globMatches(id, id)).toBe(!id.includes('*') || globMatches(id, id));
        expect(globMatches('*', id)).toBe(true);
      }),
    );
  });

  test('whatever is both included and excluded is not selected', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('contract', 'filters', 'sorting'),
        fc.stringMatching(/^[a-z-]{1,12}$/),
        (family, name) => {
          const id = `${family}.${name}`;
          const s = selectionFrom({ CONFORMANCE_CHECKS: id, CONFORMANCE_EXCLUDE_CHECKS: `${family}.*` });
          expect(selectsCheck(s, { id, family })).toBe(false);
        },
      ),
    );
  });

  test('a bad expression is a usage error naming its variable', () => {
    expect(() => loadConfig({ CONFORMANCE_EXCLUDE_OPERATIONS: '(' })).toThrow(/CONFORMANCE_EXCLUDE_OPERATIONS/);
  });
});
