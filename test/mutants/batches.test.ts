/** The kill matrix's batches (test/mutants/batches.ts): who shares a run, and whose kill a shared run cannot vouch for. */
import { describe, expect, test } from 'vitest';
import type { Behaviour } from '../../src/config/exchangeLog.js';
import type { MutantCase } from './registry.js';
import { batchesOf, reachOf, suspects } from './batches.js';
import type { Alteration } from '../support/proxy.js';

const OPERATIONS = ['GET /flows/{id}', 'POST /flows/', 'POST /flows/filter', 'POST /variables/', 'DELETE /flows/{id}'];

const mutantOf = (id: string, operations: string, killedBy: string[], rewritesRequests = false): MutantCase => ({
  mutant: { id, breaks: id, ...(rewritesRequests ? { onRequest: (req) => req } : { onResponse: (_q, res) => res }) },
  operations,
  killedBy,
});

/** An exchange sent for an operation; for none, by the corpus unless another sender is named. */
const sent = (m: string, t: string, forOp?: string, by = forOp ? 'exercise' : 'corpus'): Behaviour => ({
  key: '',
  request: '',
  method: m,
  template: t,
  status: 200,
  ms: 1,
  by,
  ...(forOp ? { for: forOp } : {}),
});

const getFlow = mutantOf('get-flow', '^GET /flows/\\{id\\}$', ['contract.success-schema GET /flows/{id}']);
const createVariable = mutantOf('create-variable', '^POST /variables/$', ['contract.no-5xx POST /variables/']);
const createFlow = mutantOf('create-flow', '^POST /flows/$', ['contract.no-5xx POST /flows/']);
const filterFlows = mutantOf('filter-flows', '^POST /flows/filter$', ['filters.oracle POST /flows/filter'], true);
const deleteFlow = mutantOf('delete-flow', '^DELETE /flows/\\{id\\}$', ['methods.delete DELETE /flows/{id}'], true);

/** What the unmutated run sent: GET /flows/{id}'s checks make their flow first; the corpus makes flows and reads them. */
const reach = reachOf([
  sent('POST', '/flows/', 'GET /flows/{id}'),
  sent('GET', '/flows/{id}', 'GET /flows/{id}'),
  sent('POST', '/variables/', 'POST /variables/'),
  sent('POST', '/flows/'),
  sent('POST', '/flows/filter'),
]);

describe('batchesOf', () => {
  test('without an unmutated run to learn from, every mutant runs alone', () => {
    expect(batchesOf([getFlow, createVariable], OPERATIONS).map((b) => b.members.length)).toEqual([1, 1]);
  });

  test('mutants whose runs send nothing to each other’s operations share a run; one whose operation another’s run sends to does not', () => {
    const batches = batchesOf([getFlow, createVariable, createFlow], OPERATIONS, reach);
    expect(batches.map((b) => b.members.map((m) => m.mutant.id))).toEqual([
      ['get-flow', 'create-variable'],
      ['create-flow'],
    ]);
  });

  test('a mutant of the operation that makes an object the whole run shares runs alone', () => {
    const sharing = reachOf([sent('POST', '/variables/', undefined, 'methods.get-idempotent')]);
    const batches = batchesOf([createVariable, getFlow], OPERATIONS, sharing);
    expect(batches.map((b) => b.members.map((m) => m.mutant.id))).toEqual([['create-variable'], ['get-flow']]);
  });

  test('a mutant that rewrites a write runs alone; one that rewrites a read may share', () => {
    const batches = batchesOf([deleteFlow, createVariable, filterFlows], OPERATIONS, reach);
    expect(batches.map((b) => b.members.map((m) => m.mutant.id))).toEqual([
      ['delete-flow'],
      ['create-variable', 'filter-flows'],
    ]);
  });
});

describe('suspects', () => {
  const [batch] = batchesOf([getFlow, createVariable, filterFlows], OPERATIONS, reach);
  const changed = (mutant: string, method: string, path: string, status = 200): Alteration => ({
    mutant,
    stage: 'response',
    method,
    path,
    status,
  });

  test('changes only to exchanges sent for the changer’s own operations: the run vouches for every kill', () => {
    const exchanges = [sent('POST', '/variables/', 'POST /variables/'), sent('GET', '/flows/{id}', 'GET /flows/{id}')];
    expect(suspects(batch, [changed('create-variable', 'POST', '/variables/', 500)], exchanges)).toEqual(new Set());
  });

  test('a change to an exchange sent for another member’s operation: that member is suspected', () => {
    const exchanges = [sent('POST', '/variables/', 'GET /flows/{id}'), sent('POST', '/variables/', 'POST /variables/')];
    expect(suspects(batch, [changed('create-variable', 'POST', '/variables/')], exchanges)).toEqual(
      new Set(['get-flow']),
    );
  });

  test('an answer that changes how the client treats every request (a 503, a dropped connection): every other member', () => {
    const exchanges = [sent('POST', '/variables/', 'POST /variables/')];
    expect(suspects(batch, [changed('create-variable', 'POST', '/variables/', 503)], exchanges)).toEqual(
      new Set(['get-flow', 'filter-flows']),
    );
  });

  test('a change to the corpus (sent for no operation): the members judged by a check that reads it', () => {
    const exchanges = [sent('POST', '/flows/filter'), sent('POST', '/flows/filter', 'POST /flows/filter')];
    const altered: Alteration = {
      mutant: 'get-flow',
      stage: 'response',
      method: 'POST',
      path: '/flows/filter',
      status: 200,
    };
    expect(suspects(batch, [altered], exchanges)).toEqual(new Set(['filter-flows']));
  });

  test('a change to an object the whole run shares (sent for no operation, not by the corpus): every other member', () => {
    const exchanges = [sent('POST', '/variables/', undefined, 'contract.no-5xx')];
    expect(suspects(batch, [changed('create-variable', 'POST', '/variables/')], exchanges)).toEqual(
      new Set(['get-flow', 'filter-flows']),
    );
  });

  test('a request of its own sent upstream that writes: every other member', () => {
    const upstream: Alteration = { mutant: 'get-flow', stage: 'upstream', method: 'PATCH', path: '/flows/1' };
    expect(suspects(batch, [upstream], [sent('PATCH', '/flows/{id}', 'GET /flows/{id}')])).toEqual(
      new Set(['create-variable', 'filter-flows']),
    );
  });
});
