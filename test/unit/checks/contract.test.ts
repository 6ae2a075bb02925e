/** Family `contract` on hand-built exchanges: for each rule, an exchange that passes and one that fails, with its kind and key. */
import { describe, expect, test } from 'vitest';
import { problemWithValidExchange } from '../../../src/checks/contract/judges.js';
import { type Reply, applies, exchange, fakeContext, judge, operation, outcome } from './fake.js';
import { BUILT_IN_CHECKS } from '../../../src/checks/core/registry.js';
import type { RequestToSend } from '../../../src/openapi/request.js';
import type { Sent } from '../../../src/checks/core/context.js';

const FLOW = {
  id: '0b8f7a4e-0000-4000-8000-000000000001',
  created: null,
  updated: null,
  name: 'conformance-x',
  tags: [],
  labels: {},
};
const VALIDATION = { detail: [{ loc: ['body', 'name'], msg: 'field required', type: 'missing' }] };

type Exercised = Array<Omit<Sent, 'exchange'> & { reply: Reply }>;

async function verdictOn(id: string, opKey: string, exercised: Exercised) {
  return outcome(await judge(id, opKey, await fakeContext({ exercised: { [opKey]: exercised } })));
}

const recipe = (reply: Reply): Exercised => [{ kind: 'recipe', reply }];

describe('contract checks judge each exchange of the kinds they look at', () => {
  const cases: Array<[string, string, Exercised, Exercised, string]> = [
    [
      'contract.no-5xx',
      'GET /flows/{id}',
      recipe({ status: 200, json: FLOW }),
      recipe({ status: 500, text: 'boom', contentType: 'text/plain' }),
      'server-error 500 recipe',
    ],
    [
      'contract.no-5xx',
      'GET /flows/{id}',
      recipe({ status: 404, json: { detail: 'x' } }),
      recipe({ status: 0 }),
      'no-answer recipe',
    ],
    [
      // A JSON body sent as text/plain that crashes the server: a MUST failure of its own input class.
      'contract.no-5xx',
      'POST /flows/',
      [{ kind: 'wrong-content-type', reply: { status: 422, json: VALIDATION } }],
      [
        {
          kind: 'wrong-content-type',
          reply: { status: 500, text: 'Internal Server Error', contentType: 'text/plain' },
        },
      ],
      'server-error 500 wrong-content-type',
    ],
    [
      // A generated body's crash is keyed by the fields its cause lies in: another field, another key.
      'contract.no-5xx',
      'PATCH /deployments/{id}',
      [{ kind: 'generated', fields: ['work_pool_name'], reply: { status: 204 } }],
      [{ kind: 'generated', fields: ['tags', 'work_pool_name'], reply: { status: 500, json: {} } }],
      'server-error 500 generated {tags,work_pool_name}',
    ],
    [
      'contract.available',
      'GET /flows/{id}',
      recipe({ status: 200, json: FLOW }),
      recipe({ status: 503, json: {}, attempts: 5 }),
      'unavailable recipe',
    ],
    [
      // A 423 whose Retry-After is a fraction of seconds, as Prefect's v2 increment sends: not delay-seconds.
      'contract.headers',
      'GET /flows/{id}',
      recipe({ status: 200, json: FLOW, headers: { 'retry-after': '120' } }),
      recipe({ status: 200, json: FLOW, headers: { 'retry-after': '1.54' } }),
      'header.untrue Retry-After',
    ],
    [
      'contract.headers',
      'POST /flows/',
      recipe({ status: 201, json: FLOW, headers: { location: `/api/flows/${FLOW.id}` } }),
      recipe({ status: 201, json: FLOW, headers: { location: 'http://[flows' } }),
      'header.untrue Location',
    ],
    [
      'contract.success-status-documented',
      'GET /flows/{id}',
      recipe({ status: 200, json: FLOW }),
      recipe({ status: 203, json: FLOW }),
      'status.undocumented 203',
    ],
    [
      'contract.content-type',
      'GET /flows/{id}',
      recipe({ status: 200, json: FLOW }),
      recipe({ status: 200, text: '{}', contentType: 'text/plain' }),
      'content-type.mismatch 200 text/plain',
    ],
    [
      'contract.content-type',
      'GET /flows/{id}',
      recipe({ status: 200, json: FLOW }),
      recipe({ status: 200, text: '{"id":', contentType: 'application/json' }),
      'json.unparsable 200',
    ],
    [
      'contract.content-type',
      'DELETE /flows/{id}',
      recipe({ status: 204 }),
      recipe({ status: 204, text: 'gone', contentType: 'text/plain' }),
      'content-type.mismatch 204 text/plain',
    ],
    [
      'contract.success-schema',
      'GET /flows/{id}',
      recipe({ status: 200, json: FLOW }),
      recipe({ status: 200, json: { ...FLOW, tags: 'a' } }),
      'schema.mismatch 200 /tags type',
    ],
    [
      'contract.error-schema',
      'GET /flows/{id}',
      recipe({ status: 422, json: VALIDATION }),
      recipe({ status: 422, json: { detail: 'bad' } }),
      'schema.mismatch 422 /detail type',
    ],
    [
      'contract.valid-input-accepted',
      'GET /flows/{id}',
      recipe({ status: 404, json: { detail: 'x' } }),
      recipe({ status: 400, json: { detail: 'x' } }),
      'input.refused 400',
    ],
    [
      'contract.invalid-wrong-type',
      'POST /flows/',
      [
        {
          kind: 'negative',
          negative: 'wrong-type',
          detail: 'name as a number',
          reply: { status: 422, json: VALIDATION },
        },
      ],
      [{ kind: 'negative', negative: 'wrong-type', detail: 'name as a number', reply: { status: 201, json: FLOW } }],
      'input.accepted 201',
    ],
    [
      'contract.invalid-malformed-json',
      'POST /flows/',
      [{ kind: 'negative', negative: 'malformed-json', detail: 'cut JSON', reply: { status: 422, json: VALIDATION } }],
      [{ kind: 'negative', negative: 'malformed-json', detail: 'cut JSON', reply: { status: 500, json: {} } }],
      'input.accepted 500',
    ],
    [
      'contract.invalid-missing-required',
      'POST /flows/',
      [{ kind: 'negative', negative: 'missing-required', detail: 'no name', reply: { status: 422, json: VALIDATION } }],
      [{ kind: 'negative', negative: 'missing-required', detail: 'no name', reply: { status: 200, json: FLOW } }],
      'input.accepted 200',
    ],
    [
      'contract.invalid-extra-property',
      'POST /flows/',
      [{ kind: 'negative', negative: 'extra-property', detail: 'x: 1', reply: { status: 422, json: VALIDATION } }],
      [{ kind: 'negative', negative: 'extra-property', detail: 'x: 1', reply: { status: 0 } }],
      'input.accepted no-answer',
    ],
    [
      'contract.invalid-out-of-range',
      'POST /flows/filter',
      [{ kind: 'negative', negative: 'out-of-range', detail: 'limit -1', reply: { status: 422, json: VALIDATION } }],
      [{ kind: 'negative', negative: 'out-of-range', detail: 'limit -1', reply: { status: 200, json: [] } }],
      'input.accepted 200',
    ],
    [
      'contract.unknown-id-404',
      'GET /flows/{id}',
      [{ kind: 'unknown', reply: { status: 404, json: { detail: 'x' } } }],
      [{ kind: 'unknown', reply: { status: 200, json: FLOW } }],
      'status.unexpected 200',
    ],
    [
      'contract.reaches-2xx',
      'GET /flows/{id}',
      recipe({ status: 200, json: FLOW }),
      recipe({ status: 409, json: { detail: 'taken' } }),
      'status.unexpected 409',
    ],
  ];

  test.each(cases)('%s on %s: passes, and fails with the kind and key', async (id, opKey, good, bad, failure) => {
    expect(await verdictOn(id, opKey, good)).toBe('passed');
    expect(await verdictOn(id, opKey, bad)).toBe(failure);
  });

  test('a check with no exchange of its kind does not apply; an operation not exercised is skipped with the reason', async () => {
    const onlyRecipe = await fakeContext({ exercised: { 'GET /flows/{id}': recipe({ status: 200, json: FLOW }) } });
    expect(applies('contract.unknown-id-404', 'GET /flows/{id}', onlyRecipe)).toBe(false);
    expect(applies('contract.invalid-wrong-type', 'GET /flows/{id}', onlyRecipe)).toBe(false);
    expect(applies('contract.no-5xx', 'GET /flows/{id}', onlyRecipe)).toBe(true);
    const withUnknown = await fakeContext({
      exercised: {
        'GET /flows/{id}': [
          { kind: 'recipe', reply: { status: 200, json: FLOW } },
          { kind: 'unknown', reply: { status: 404, json: { detail: 'x' } } },
        ],
      },
    });
    expect(applies('contract.unknown-id-404', 'GET /flows/{id}', withUnknown)).toBe(true);
    const fake = await fakeContext({ exercised: { 'GET /flows/{id}': { skipped: 'read-only mode' } } });
    expect(applies('contract.unknown-id-404', 'GET /flows/{id}', fake)).toBe(true);
    expect(await judge('contract.no-5xx', 'GET /flows/{id}', fake)).toEqual({
      status: 'skipped',
      message: 'read-only mode',
    });
  });

  test('a 503 that outlasted the retries is judged only by the availability checks', async () => {
    const stayed = recipe({ status: 503, json: {}, attempts: 5 });
    expect(await verdictOn('contract.success-status-documented', 'GET /flows/{id}', stayed)).toBe('skipped');
    expect(await verdictOn('contract.no-5xx', 'GET /flows/{id}', stayed)).toBe('passed');
  });

  test('each distinct (kind, key) is one failure, the last (shrunk) one first, among all exchanges', async () => {
    const fake = await fakeContext({
      exercised: {
        'POST /flows/': [
          { kind: 'recipe', reply: { status: 500, json: {} } },
          { kind: 'generated', reply: { status: 500, json: {} } },
          { kind: 'negative', negative: 'wrong-type', reply: { status: 502, json: {} } },
          { kind: 'generated', reply: { status: 500, json: {} } },
        ],
      },
    });
    const verdict = await judge('contract.no-5xx', 'POST /flows/', fake);
    expect(verdict.status).toBe('failed');
    if (verdict.status !== 'failed') return;
    expect(verdict.failures.map((f) => f.key)).toEqual(['500 generated', '500 recipe', '502 negative:wrong-type']);
    expect(verdict.among).toBe('4 of 4 exchange(s)');
  });

  test('a failure names the baseline replays that showed it; the verdict names every replay it judged', async () => {
    const fake = await fakeContext({
      exercised: {
        'POST /flows/': [
          { kind: 'generated', fields: ['state'], reply: { status: 500, json: {} } },
          { kind: 'generated', fields: ['state'], replay: 'completed', reply: { status: 201, json: FLOW } },
          { kind: 'generated', fields: ['state'], replay: 'deferred', reply: { status: 500, json: {} } },
          { kind: 'generated', fields: ['state'], replay: 'deferred', reply: { status: 500, json: {} } },
        ],
      },
    });
    const verdict = await judge('contract.no-5xx', 'POST /flows/', fake);
    if (verdict.status !== 'failed') throw new Error(`expected a failure, got ${verdict.status}`);
    expect(verdict.failures.map((f) => [f.key, f.replays])).toEqual([['500 generated {state}', ['deferred']]]);
    expect(verdict.replaysJudged).toEqual(['completed', 'deferred']);
  });

  test('a replay the server stayed busy for (503 through the retries) is named unanswered, beside a pass: its entry is not judged', async () => {
    const fake = await fakeContext({
      exercised: {
        'POST /flows/': [
          { kind: 'generated', fields: ['state'], reply: { status: 201, json: FLOW } },
          { kind: 'generated', fields: ['state'], replay: 'deferred', reply: { status: 503, json: {} } },
          { kind: 'generated', fields: ['state'], replay: 'completed', reply: { status: 503, json: {} } },
          { kind: 'generated', fields: ['state'], replay: 'completed', reply: { status: 201, json: FLOW } },
        ],
      },
    });
    const verdict = await judge('contract.no-5xx', 'POST /flows/', fake);
    expect(verdict).toMatchObject({ status: 'passed', replaysUnanswered: ['deferred'] });
    // Where the 503 is what the check judges (an entry may name it), the replay showed it: judged, not unanswered.
    const available = await judge('contract.available', 'POST /flows/', fake);
    expect(available.status).toBe('failed');
    expect(available).not.toHaveProperty('replaysUnanswered');
  });

  test('no answer in time where the valid request beside it got none either is load: contract.available, never no-5xx', async () => {
    const timedOut = { status: 0, error: 'UND_ERR_HEADERS_TIMEOUT: Headers Timeout Error' };
    const busyFirst = exchange({ method: 'POST', path: '/flows/' }, timedOut);
    const busy = await fakeContext({
      exercised: {
        'POST /flows/': [{ kind: 'generated', fields: ['tags'], busyFirst, busyBeside: true, reply: timedOut }],
      },
    });
    expect((await judge('contract.no-5xx', 'POST /flows/', busy)).status).toBe('passed');
    expect(outcome(await judge('contract.available', 'POST /flows/', busy))).toBe('unavailable generated');
    // The valid request beside it answered: the timeout is the request's own, a MUST failure.
    const own = await fakeContext({
      exercised: { 'POST /flows/': [{ kind: 'generated', fields: ['tags'], busyFirst, reply: timedOut }] },
    });
    expect(outcome(await judge('contract.no-5xx', 'POST /flows/', own))).toBe('no-answer generated');
    expect((await judge('contract.available', 'POST /flows/', own)).status).toBe('passed');
  });

  test('an extreme value the server stayed busy for is named unanswered by the read back it would have made', async () => {
    const fake = await fakeContext({
      exercised: {
        'PATCH /work_queues/{id}': [
          {
            kind: 'extreme',
            edge: 'reserved-characters',
            fields: ['description', 'name'],
            reply: { status: 503, json: {} },
          },
          { kind: 'extreme', edge: 'non-ascii', fields: ['name'], reply: { status: 204 } },
          { kind: 'read-back', edge: 'non-ascii', fields: ['name'], reply: { status: 200, json: {} } },
        ],
      },
    });
    expect(await judge('contract.reads-back', 'PATCH /work_queues/{id}', fake)).toMatchObject({
      status: 'passed',
      causesUnanswered: ['read-back reserved-characters {description,name}'],
    });
  });

  test("an edge withheld from a server that is not the run's own is named unanswered by every contract check of the operation", async () => {
    const fake = await fakeContext({
      exercised: { 'POST /flows/': [{ kind: 'recipe', reply: { status: 201, json: FLOW } }] },
    });
    const exchangesOf = fake.ctx.exchangesOf;
    fake.ctx.exchangesOf = (op) => ({
      ...exchangesOf(op),
      withheld: [{ check: 'contract.reads-back', edge: 'past-64-bits', reason: 'harms others' }],
    });
    expect(await judge('contract.no-5xx', 'POST /flows/', fake)).toMatchObject({
      status: 'passed',
      causesWithheld: ['past-64-bits'],
    });
  });

  test('a generated body traced to none of its fields is keyed apart from one traced to a field, and from one never traced', async () => {
    const fake = await fakeContext({
      exercised: {
        'POST /flows/': [
          { kind: 'generated', fields: [], reply: { status: 500, json: {} } },
          { kind: 'generated', fields: ['state'], reply: { status: 500, json: {} } },
          { kind: 'generated', reply: { status: 500, json: {} } },
        ],
      },
    });
    const verdict = await judge('contract.no-5xx', 'POST /flows/', fake);
    if (verdict.status !== 'failed') throw new Error(`expected a failure, got ${verdict.status}`);
    expect(verdict.failures.map((f) => f.key).sort()).toEqual([
      '500 generated',
      '500 generated {state}',
      '500 generated {}',
    ]);
  });

  test('an extreme value is a class of its own, keyed by its label and field; refusing it is no failure of any check', async () => {
    const extreme = (status: number, fields: string[]) => ({
      kind: 'extreme' as const,
      edge: 'past-64-bits' as const,
      fields,
      reply: status === 422 ? { status, json: VALIDATION } : { status, json: {} },
    });
    const crashing = await fakeContext({
      exercised: {
        'POST /flows/filter': [extreme(500, ['offset']), extreme(422, ['limit'])],
        'DELETE /flows/{id}': [{ kind: 'server-made', reply: { status: 500, json: {} } }],
      },
    });
    const verdict = await judge('contract.no-5xx', 'POST /flows/filter', crashing);
    if (verdict.status !== 'failed') throw new Error(`expected a failure, got ${verdict.status}`);
    expect(verdict.failures.map((f) => f.key)).toEqual(['500 past-64-bits {offset}']);
    const deleted = await judge('contract.no-5xx', 'DELETE /flows/{id}', crashing);
    if (deleted.status !== 'failed') throw new Error(`expected a failure, got ${deleted.status}`);
    expect(deleted.failures.map((f) => f.key)).toEqual(['500 server-made']);
    const refused = await fakeContext({ exercised: { 'POST /flows/filter': [extreme(422, ['offset'])] } });
    expect(outcome(await judge('contract.no-5xx', 'POST /flows/filter', refused))).toBe('passed');
    // valid-input-accepted asks a 2xx of valid input; an extreme value is not held to it.
    expect(applies('contract.valid-input-accepted', 'POST /flows/filter', refused)).toBe(false);
  });

  test('the generated-body property shrinks on a server error and on valid input refused, not on other failures', async () => {
    const { ctx } = await fakeContext();
    const op = ctx.model.operations.find((o) => o.key === 'POST /flows/')!;
    const ex = (status: number) => exchange({ method: 'POST', path: '/flows/' }, { status, json: {} });
    expect(problemWithValidExchange(ctx.validate, op, ex(500))).toMatch(/^server-error 500 generated/);
    expect(problemWithValidExchange(ctx.validate, op, ex(400))).toMatch(/^input.refused 400/);
    expect(problemWithValidExchange(ctx.validate, op, ex(203))).toBeUndefined();
    expect(problemWithValidExchange(ctx.validate, op, ex(422))).toBeUndefined();
  });
});

describe('contract.default-read and contract.default-write: a documented default is what the server assumes', () => {
  /** Flows sorted by `sort`, NAME_ASC where the request leaves it out (`default` names another default). */
  const flowsSorted =
    (fallback = 'NAME_ASC') =>
    (r: RequestToSend): Reply | undefined => {
      if (r.path !== '/flows/filter') return undefined;
      const sort = (r.json as { sort?: string } | undefined)?.sort ?? fallback;
      const names = ['a', 'b', 'c'];
      return { status: 200, json: (sort === 'NAME_DESC' ? names.reverse() : names).map((name) => ({ name })) };
    };
  /** Deployments made with `paused` false where the request leaves it out; each with an id and time of its own. */
  const deploymentsMade = (fallback = false) => {
    let made = 0;
    return (r: RequestToSend): Reply | undefined => {
      if (r.path !== '/deployments/') return undefined;
      made++;
      const paused = (r.json as { paused?: boolean }).paused ?? fallback;
      return { status: 201, json: { id: `d-${made}`, created: `2026-11-28T00:00:0${made}Z`, paused } };
    };
  };

  test("the variants are the request's non-null defaults, in the body and the query", async () => {
    const fake = await fakeContext();
    const variants = (id: string, key: string) =>
      BUILT_IN_CHECKS.find((c) => c.id === id)!.variants!(operation(fake.ctx.model, key), fake.ctx);
    expect(variants('contract.default-read', 'POST /flows/filter')).toEqual(['body.offset', 'body.sort']);
    expect(variants('contract.default-read', 'GET /block_documents/{id}')).toEqual(['query.include_secrets']);
    expect(variants('contract.default-write', 'POST /deployments/')).toEqual([
      'body.paused',
      'body.enforce_parameter_schema',
    ]);
    expect(applies('contract.default-write', 'POST /flows/filter', fake)).toBe(false);
    expect(applies('contract.default-read', 'GET /flows/{id}', fake)).toBe(false);
  });

  test('a read answered alike with the default left out and stated passes; another default fails', async () => {
    const judged = async (server: (r: RequestToSend) => Reply | undefined) => {
      const fake = await fakeContext({ server });
      const verdict = await judge('contract.default-read', 'POST /flows/filter', fake, 'body.sort');
      return { verdict, sent: fake.sent.map((r) => (r.json as { sort?: string }).sort ?? 'absent') };
    };
    const kept = await judged(flowsSorted());
    expect(outcome(kept.verdict)).toBe('passed');
    expect(kept.sent).toEqual(['absent', 'NAME_ASC', 'absent']);
    expect(outcome((await judged(flowsSorted('NAME_DESC'))).verdict)).toBe('answer.differs body.sort /*/name');
  });

  test("a write's objects differ in ids and times, which identical requests vary in too: only the default counts", async () => {
    const judged = async (fallback: boolean) =>
      outcome(
        await judge(
          'contract.default-write',
          'POST /deployments/',
          await fakeContext({ server: deploymentsMade(fallback) }),
          'body.paused',
        ),
      );
    expect(await judged(false)).toBe('passed');
    expect(await judged(true)).toBe('answer.differs body.paused /paused');
  });

  test('a header carries its default as text, a query its scalar', async () => {
    const fake = await fakeContext({ server: () => ({ status: 200, json: [] }) });
    await judge('contract.default-write', 'POST /work_queues/{id}/get_runs', fake, 'header.x-prefect-ui');
    expect(fake.sent.map((r) => r.headers?.['x-prefect-ui'])).toEqual([undefined, 'false', undefined]);
    const read = await fakeContext({ server: () => ({ status: 200, json: {} }) });
    await judge('contract.default-read', 'GET /block_documents/{id}', read, 'query.include_secrets');
    expect(read.sent.map((r) => r.query?.include_secrets)).toEqual([undefined, false, undefined]);
  });

  test('a busy answer to the stated default (503: the issue-79 bulk_delete) sends the three again: never a different default', async () => {
    let n = 0;
    const busyOnce = (r: RequestToSend): Reply | undefined => {
      n++;
      return n === 2 ? { status: 503, json: { exception_message: 'Service Unavailable' } } : deploymentsMade()(r);
    };
    const fake = await fakeContext({ server: busyOnce });
    expect(outcome(await judge('contract.default-write', 'POST /deployments/', fake, 'body.paused'))).toBe('passed');
    expect(fake.sent).toHaveLength(6);
  });

  test('a difference that does not come back when the three are sent again is not a failure', async () => {
    // The stated default's create comes back paused the first time only: a write beside it, not the default.
    let n = 0;
    const pausedOnce = (r: RequestToSend): Reply | undefined => {
      if (r.path !== '/deployments/') return undefined;
      n++;
      return {
        status: 201,
        json: { id: `d-${n}`, paused: n === 2 || ((r.json as { paused?: boolean }).paused ?? false) },
      };
    };
    const verdict = await judge(
      'contract.default-write',
      'POST /deployments/',
      await fakeContext({ server: pausedOnce }),
      'body.paused',
    );
    expect(verdict).toMatchObject({ status: 'passed', message: expect.stringMatching(/did not come back/) });
  });

  test("the same items in another order are ties of the sort where the default is not the sort's: implementation-defined; a sort's default is held to its order", async () => {
    // Two items the sort ties, answered in either order: the first and third answers alike, the second not.
    let n = 0;
    const tied = (r: RequestToSend): Reply | undefined => {
      if (r.path !== '/flows/filter') return undefined;
      const items = [{ name: 'a' }, { name: 'b' }, { name: 'c' }];
      const offset = (r.json as { offset?: number } | undefined)?.offset ?? 0;
      return { status: 200, json: (n++ % 3 === 1 ? [items[1], items[0], items[2]] : items).slice(offset) };
    };
    const offset = await judge(
      'contract.default-read',
      'POST /flows/filter',
      await fakeContext({ server: tied }),
      'body.offset',
    );
    expect(offset).toMatchObject({
      status: 'passed',
      message: expect.stringMatching(/in another order: implementation-defined, .* \(first at \/\*\/name\)$/),
    });
    n = 0;
    const sort = await judge(
      'contract.default-read',
      'POST /flows/filter',
      await fakeContext({ server: tied }),
      'body.sort',
    );
    expect(outcome(sort)).toBe('answer.differs body.sort /*/name');
    // A default that changes which items come back is still a difference.
    const skips = (r: RequestToSend): Reply | undefined =>
      r.path === '/flows/filter'
        ? { status: 200, json: [{ name: 'a' }, { name: 'b' }].slice('offset' in ((r.json as object) ?? {}) ? 1 : 0) }
        : undefined;
    expect(
      outcome(
        await judge('contract.default-read', 'POST /flows/filter', await fakeContext({ server: skips }), 'body.offset'),
      ),
    ).toMatch(/^answer.differs body.offset/);
  });

  test('two identical requests answered differently leave nothing to hold the default to: skipped, never failed', async () => {
    // A list that grows between two identical reads (another client writing): no field name explains it.
    let n = 0;
    const unsteady = (): Reply => ({ status: 200, json: Array.from({ length: ++n }, (_, i) => ({ name: `f${i}` })) });
    const verdict = await judge(
      'contract.default-read',
      'POST /flows/filter',
      await fakeContext({ server: unsteady }),
      'body.sort',
    );
    expect(verdict.status).toBe('skipped');
    expect(
      outcome(
        await judge(
          'contract.default-write',
          'POST /deployments/',
          await fakeContext({ settings: { readOnly: true } }),
          'body.paused',
        ),
      ),
    ).toMatch(/^skipped/);
  });
});
