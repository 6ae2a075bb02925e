/** Load is not behaviour: a pair with a busy answer is sent again or not judged, a difference counts where it comes back. */
import { describe, expect, test } from 'vitest';
import { differenceThatReturns, isLoadAnswer, pastLoad } from '../../../src/checks/core/load.js';
import { fail, pass, skip } from '../../../src/checks/core/verdict.js';
import type { RequestToSend } from '../../../src/openapi/request.js';
import { exchange, fakeContext, judge, outcome, type Reply } from './fake.js';

const noPause = async () => {};
const answered = (...statuses: number[]) =>
  statuses.map((status) => exchange({ method: 'GET', path: '/x' }, { status }));

describe('pastLoad', () => {
  test('sends again while an answer is 503, 429 or none, and gives the answers once none is', async () => {
    const tries = [answered(200, 503), answered(429, 200), answered(200, 200)];
    let n = 0;
    const answers = await pastLoad(async () => tries[n++]!, 'the pair', noPause);
    expect(n).toBe(3);
    expect(Array.isArray(answers) && answers.map((a) => a.status)).toEqual([200, 200]);
    expect([503, 429, 0].map((status) => isLoadAnswer({ status }))).toEqual([true, true, true]);
    expect([200, 404, 500].map((status) => isLoadAnswer({ status }))).toEqual([false, false, false]);
  });

  test('says why it is not judged when every try met a busy server', async () => {
    const answers = await pastLoad(async () => answered(200, 0), 'the pair', noPause);
    expect(answers).toMatch(
      /^the pair: 3 tries met a busy server \(no answer .*\): load, not a difference of behaviour; not judged$/,
    );
  });
});

describe('differenceThatReturns', () => {
  test('a difference that comes back fails; one that does not passes with a note; one that cannot be told is not judged', async () => {
    const verdicts = (...vs: ReturnType<typeof pass>[]) => {
      let n = 0;
      return async () => vs[n++]!;
    };
    const differs = fail('answer.differs', 'status', 'status 200, then 503');
    expect(await differenceThatReturns(verdicts(differs, differs))).toBe(differs);
    expect(await differenceThatReturns(verdicts(differs, pass()))).toEqual(
      pass('a difference that did not come back when the pair was sent again: status 200, then 503'),
    );
    expect((await differenceThatReturns(verdicts(differs, skip('busy')))).status).toBe('skipped');
    expect(await differenceThatReturns(verdicts(pass('same')))).toEqual(pass('same'));
  });
});

/** A flow whose `last_polled` another client moves on every read, and a server busy for the first `busy` requests. */
function sharedServer(options: { busy?: number; bodyMatters?: boolean } = {}) {
  let reads = 0;
  return (r: RequestToSend): Reply | undefined => {
    if (r.method !== 'GET' || !r.path.startsWith('/flows/')) return undefined;
    reads++;
    if (reads <= (options.busy ?? 0)) return { status: 503, json: { exception_message: 'Service Unavailable' } };
    const flow = {
      id: 'id-1',
      name: 'conformance-test-run-1',
      tags: [],
      last_polled: `2026-12-01T00:00:0${reads % 10}Z`,
    };
    return { status: 200, json: options.bodyMatters && r.json !== undefined ? { ...flow, name: 'other' } : flow };
  };
}

describe('methods.get-ignores-body on a busy, shared server', () => {
  test('a field another client moves between the GETs is masked and named', async () => {
    const verdict = await judge(
      'methods.get-ignores-body',
      'GET /flows/{id}',
      await fakeContext({ server: sharedServer() }),
    );
    expect(verdict).toMatchObject({ status: 'passed', message: expect.stringMatching(/but for last_polled/) });
  });

  test('a 503 in the pair sends the pair again, never a difference', async () => {
    const verdict = await judge(
      'methods.get-ignores-body',
      'GET /flows/{id}',
      await fakeContext({ server: sharedServer({ busy: 2 }) }),
    );
    expect(verdict.status).toBe('passed');
  });

  test('a GET the body changes still fails', async () => {
    const verdict = await judge(
      'methods.get-ignores-body',
      'GET /flows/{id}',
      await fakeContext({ server: sharedServer({ bodyMatters: true }) }),
    );
    expect(outcome(verdict)).toBe('answer.differs /name');
  });
});
