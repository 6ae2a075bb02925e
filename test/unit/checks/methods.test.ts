/** Family `methods` on a scripted server: the verb semantics each check enforces, kept and broken. */
import { describe, expect, test } from 'vitest';
import { BEYOND_ASCII, storedAsSent } from '../../../src/checks/methods/stored.js';
import { patchFields } from '../../../src/checks/methods/writes.js';
import { BUILT_IN_CHECKS } from '../../../src/checks/core/registry.js';
import { prefectProfile } from '../../../src/model/profiles/prefect.js';
import type { RequestToSend } from '../../../src/openapi/request.js';
import { type Obj, type Reply, applies, fakeContext, judge, objectsMade, outcome, prepare } from './fake.js';

/** A tiny store of flows, served like the API serves them; `breaks` names the behaviour to get wrong. */
function flowServer(breaks?: string) {
  const flows = new Map<string, Obj>();
  let reads = 0;
  let puts = 0;
  const flow = (id: string): Obj => {
    if (!flows.has(id)) flows.set(id, { id, name: `flow ${id}`, tags: [], description: null, updated: 'now' });
    return flows.get(id)!;
  };
  return (r: RequestToSend): Reply | undefined => {
    const id = /^\/flows\/([^/]+)$/.exec(r.path)?.[1];
    if (r.method === 'POST' && r.path === '/flows/count')
      return {
        status: 200,
        json: breaks === 'count' ? 10 + reads : 100 - [...flows.values()].filter((f) => f.deleted).length,
      };
    if (r.method === 'GET' && id) {
      reads++;
      if (breaks === 'body' && r.json !== undefined) return { status: 400, json: { detail: 'no body on GET' } };
      const f = flow(id);
      if ((f.deleted || flows.has('*')) && breaks !== 'read-after-delete')
        return { status: 404, json: { detail: 'gone' } };
      return { status: 200, json: breaks === 'repeat' ? { ...f, reads } : f };
    }
    if (r.method === 'DELETE' && id) {
      const f = flow(id);
      if (f.deleted && breaks !== 'delete-twice') return { status: 404, json: { detail: 'gone' } };
      f.deleted = true;
      // Every flow goes with it, those the server has not been asked about yet too.
      if (breaks === 'delete-two') flows.set('*', { deleted: true });
      return { status: 204 };
    }
    if (r.method === 'PATCH' && id && id !== 'filter') {
      const body = r.json as Obj;
      Object.assign(flow(id), body, breaks === 'patch-more' ? { name: 'renamed' } : {});
      // A PATCH that names nothing resets what it does not name.
      if (breaks === 'patch-empty' && Object.keys(body).length === 0) flow(id).tags = [];
      return { status: 204 };
    }
    if (r.method === 'POST' && (r.path === '/flows/filter' || r.path === '/flows/paginate')) {
      const wanted = ((r.json as { flows?: { id?: { any_?: string[] } } }).flows?.id?.any_ ?? []).map(flow);
      // A view that was not told of the DELETE (a stale cache), or that lost every object with it.
      const shown = wanted.filter((f) =>
        breaks === 'view-stale' ? true : breaks === 'view-loses' ? false : !f.deleted && !flows.has('*'),
      );
      return { status: 200, json: r.path === '/flows/filter' ? shown : { results: shown, count: shown.length } };
    }
    if (r.method === 'PUT' && r.path === '/saved_searches/')
      return { status: 200, json: { id: breaks === 'put' ? `s${++puts}` : 's1', name: 'x' } };
    if (r.method === 'POST' && r.path === '/flows/' && /\P{ASCII}/u.test(String((r.json as Obj).name))) {
      if (breaks === 'create-refuses-beyond-ascii') return { status: 422, json: { detail: 'ASCII names only' } };
      if (breaks === 'create-crashes-beyond-ascii') return { status: 500, json: { detail: 'boom' } };
    }
    if (r.method === 'POST' && r.path === '/flows/') {
      const stored = Object.assign(flow(breaks === 'upsert' ? `f${++puts}` : 'f1'), r.json as Obj);
      if (breaks === 'create-stores-other') stored.name = 'not what was sent';
      if (breaks === 'create-stores-ascii')
        stored.name = [...String(stored.name)].map((c) => (c > '\x7f' ? '?' : c)).join('');
      return {
        status: 201,
        json: breaks === 'create-answers-other' ? { ...stored, tags: ['only-in-the-answer'] } : stored,
      };
    }
    if (r.path === '/flows/filter' && r.method !== 'POST') {
      if (breaks === '405') return { status: 404, json: { detail: 'Not Found' } };
      return {
        status: 405,
        json: { detail: 'Method Not Allowed' },
        headers: {
          allow: { allow: 'GET', 'allow-refused': 'POST, PUT', 'allow-lies': 'POST, PATCH' }[breaks ?? ''] ?? 'POST',
        },
      };
    }
    return undefined;
  };
}

const cases: Array<[string, string, string, string]> = [
  ['methods.get-repeatable', 'GET /flows/{id}', 'repeat', 'answer.differs /reads'],
  ['methods.get-safe', 'GET /flows/{id}', 'count', 'state.changed count'],
  ['methods.get-ignores-body', 'GET /flows/{id}', 'body', 'answer.differs status'],
  ['methods.put-idempotent', 'PUT /saved_searches/', 'put', 'state.changed /id'],
  ['methods.delete-then-404', 'DELETE /flows/{id}', 'read-after-delete', 'state.changed 200'],
  ['methods.delete-twice-404', 'DELETE /flows/{id}', 'delete-twice', 'status.unexpected 204'],
  ['methods.delete-only-target', 'DELETE /flows/{id}', 'delete-two', 'state.changed bystander'],
  ['methods.delete-gone-from-views', 'DELETE /flows/{id}', 'view-stale', 'state.changed filter'],
  ['methods.delete-gone-from-views', 'DELETE /flows/{id}', 'view-loses', 'state.changed filter bystander'],
  ['methods.patch-partial', 'PATCH /flows/{id}', 'patch-more', 'state.changed /name'],
  ['methods.patch-partial', 'PATCH /flows/{id}', 'patch-empty', 'state.changed /tags/*'],
  ['methods.upsert', 'POST /flows/', 'upsert', 'answer.differs /id'],
  ['methods.upsert-concurrent', 'POST /flows/', 'upsert', 'answer.differs /id'],
  ['methods.create-stored', 'POST /flows/', 'create-answers-other', 'answer.differs /tags/*'],
  ['methods.405', 'POST /flows/filter', '405', 'status.unexpected 404'],
  ['methods.405-allow', 'POST /flows/filter', 'allow', 'header.incomplete allow'],
  ['methods.405-allow', 'POST /flows/filter', 'allow-refused', 'header.untrue allow PUT'],
  ['methods.405-allow', 'POST /flows/filter', 'allow-lies', 'header.untrue allow PATCH'],
];

describe('methods checks', () => {
  test.each(cases)(
    '%s on %s: passes on a server that keeps the rule, fails with the kind and key when it breaks (%s)',
    async (id, opKey, breaks, failure) => {
      expect(outcome(await judge(id, opKey, await fakeContext({ server: flowServer() })))).toBe('passed');
      expect(outcome(await judge(id, opKey, await fakeContext({ server: flowServer(breaks) })))).toBe(failure);
    },
  );

  test("methods.get-ignores-body: an answer that changed once between the first GET and the one with a body, and stayed (another client's write), is the later GET's too: not the body's doing", async () => {
    const serve = flowServer();
    let gets = 0;
    const server = (r: RequestToSend): Reply | undefined => {
      const answer = serve(r);
      if (r.method !== 'GET' || !answer) return answer;
      // From the second GET on, the flow has a tag another client gave it.
      return gets++ === 0 ? answer : { ...answer, json: { ...(answer.json as Obj), tags: ['someone-else'] } };
    };
    const verdict = await judge('methods.get-ignores-body', 'GET /flows/{id}', await fakeContext({ server }));
    expect(outcome(verdict)).toBe('passed');
  });

  test('the checks that run alone name their lane: the group of collections related to the one they change', async () => {
    const fake = await fakeContext({ server: flowServer() });
    const laneOf = (id: string, opKey: string) => {
      const check = BUILT_IN_CHECKS.find((c) => c.id === id)!;
      expect(check.isolation).toBe('alone');
      return check.lane?.(fake.ctx.model.operations.find((o) => o.key === opKey)!, fake.ctx);
    };
    const flows = laneOf('methods.delete-only-target', 'DELETE /flows/{id}');
    expect(flows).toBeDefined();
    expect(laneOf('methods.delete-then-404', 'DELETE /task_runs/{id}')).toBe(flows);
    expect(laneOf('methods.delete-then-404', 'DELETE /variables/{id}')).toBe(
      laneOf('methods.delete-then-404', 'DELETE /variables/name/{name}'),
    );
    expect(laneOf('methods.delete-then-404', 'DELETE /variables/{id}')).not.toBe(flows);
    // Prefect deletes a deployment's concurrency limit with it: the profile joins the two.
    expect(laneOf('methods.delete-then-404', 'DELETE /v2/concurrency_limits/{id_or_name}')).toBe(flows);
    expect(laneOf('methods.put-idempotent', 'PUT /automations/{id}')).toBe(
      laneOf('methods.delete-then-404', 'DELETE /automations/{id}'),
    );
    // A PUT that names no object of a collection has no lane: nothing runs beside it.
    expect(laneOf('methods.put-idempotent', 'PUT /saved_searches/')).toBeUndefined();
    for (const check of BUILT_IN_CHECKS.filter((c) => c.isolation === 'alone')) expect(check.lane).toBeDefined();
  });

  test("the 405 probe is marked refused before the data: a conforming server's router answers it", async () => {
    const fake = await fakeContext({ server: flowServer() });
    await judge('methods.405', 'POST /flows/filter', fake);
    expect(fake.sent.map((r) => [r.method, r.path, r.refusedBeforeData])).toEqual([['PUT', '/flows/filter', true]]);
  });

  test('the DELETE scenario is sent once for the three DELETE checks', async () => {
    const fake = await fakeContext({ server: flowServer() });
    for (const id of [
      'methods.delete-then-404',
      'methods.delete-twice-404',
      'methods.delete-only-target',
      'methods.delete-gone-from-views',
    ])
      await judge(id, 'DELETE /flows/{id}', fake);
    expect(fake.sent.filter((r) => r.method === 'DELETE')).toHaveLength(2);
    // The views by id, each asked once after the DELETE, for the target and the bystander.
    expect(fake.sent.filter((r) => r.method === 'POST' && /filter|paginate/.test(r.path)).map((r) => r.json)).toEqual([
      { flows: { id: { any_: ['id-1', 'flows-object-1'] } } },
      { flows: { id: { any_: ['id-1', 'flows-object-1'] } } },
    ]);
  });

  test('prepared, the DELETE scenario sends nothing but what it compares: the objects are made before it runs alone', async () => {
    const fake = await fakeContext({ server: flowServer() });
    const made = objectsMade(fake);
    await prepare('methods.delete-then-404', 'DELETE /flows/{id}', fake);
    expect(made).toEqual(['/flows fresh']);
    const prepared = fake.sent.length;
    expect(fake.sent.some((r) => r.method === 'DELETE' || r.path.endsWith('/count'))).toBe(false);
    expect(outcome(await judge('methods.delete-then-404', 'DELETE /flows/{id}', fake))).toBe('passed');
    expect(made).toEqual(['/flows fresh']);
    const scenario = fake.sent.slice(prepared);
    expect(scenario.map((r) => `${r.method} ${r.template}`)).toEqual(
      expect.arrayContaining(['POST /flows/count', 'DELETE /flows/{id}', 'GET /flows/{id}']),
    );
  });

  test('the DELETE scenario takes three round trips: the count, the DELETE, then all that follows it side by side', async () => {
    const fake = await fakeContext({ server: flowServer() });
    await prepare('methods.delete-then-404', 'DELETE /flows/{id}', fake);
    // Requests sent in one turn of the event loop share a round trip; each is answered in a later turn.
    const rounds: string[][] = [];
    let round: string[] | undefined;
    const send = fake.ctx.send;
    fake.ctx.send = async (request, op) => {
      if (!round) {
        rounds.push((round = []));
        setTimeout(() => (round = undefined));
      }
      round.push(`${request.method} ${request.template}`);
      const answer = await send(request, op);
      await new Promise((answered) => setTimeout(answered));
      return answer;
    };
    expect(outcome(await judge('methods.delete-only-target', 'DELETE /flows/{id}', fake))).toBe('passed');
    expect(rounds.slice(0, 2)).toEqual([['POST /flows/count'], ['DELETE /flows/{id}']]);
    expect(rounds.slice(2)).toEqual([
      expect.arrayContaining(['GET /flows/{id}', 'DELETE /flows/{id}', 'POST /flows/count', 'POST /flows/filter']),
    ]);
  });

  test('a collection whose filter cannot select by id, or that has none, has no view to see the DELETE in', async () => {
    const fake = await fakeContext({ server: flowServer() });
    expect(applies('methods.delete-gone-from-views', 'DELETE /flows/{id}', fake)).toBe(true);
    expect(applies('methods.delete-gone-from-views', 'DELETE /work_pools/{work_pool_name}/workers/{name}', fake)).toBe(
      false,
    );
  });

  test('the DELETE scenario deletes the fresh object its recipe names, and makes only the bystander besides', async () => {
    const fake = await fakeContext({ server: flowServer() });
    const made = objectsMade(fake);
    await judge('methods.delete-then-404', 'DELETE /flows/{id}', fake);
    expect(made).toEqual(['/flows fresh']);
    const deleted = fake.sent.filter((r) => r.method === 'DELETE').map((r) => r.path);
    expect(deleted).toEqual(['/flows/id-1', '/flows/id-1']);
    expect(fake.sent.filter((r) => r.method === 'GET').map((r) => r.path)).toEqual([
      '/flows/id-1',
      '/flows/flows-object-1',
    ]);
  });

  test('a DELETE whose collection has no GET of one object and no count is not judged by what needs them', async () => {
    const fake = await fakeContext({ server: flowServer() });
    const unseen = 'DELETE /work_pools/{work_pool_name}/workers/{name}';
    expect(applies('methods.delete-then-404', unseen, fake)).toBe(false);
    expect(applies('methods.delete-only-target', unseen, fake)).toBe(false);
    expect(applies('methods.delete-twice-404', unseen, fake)).toBe(true);
    for (const id of ['methods.delete-then-404', 'methods.delete-only-target'])
      expect(applies(id, 'DELETE /flows/{id}', fake)).toBe(true);
  });

  test('a DELETE that does not succeed is reported as the unexpected answer it is', async () => {
    const fake = await fakeContext({
      server: (r) => (r.method === 'DELETE' ? { status: 500, json: {} } : flowServer()(r)),
    });
    expect(outcome(await judge('methods.delete-then-404', 'DELETE /flows/{id}', fake))).toBe('status.unexpected 500');
  });
});

describe('methods.get-repeatable and methods.get-safe on a server that writes by itself', () => {
  /** flowServer(), but whose `count`-th answer of a kind (`GET` of a flow, or `count`) and every one after see a write the GETs did not make. */
  function writesOnce(kind: 'GET' | 'count', at: number) {
    const serve = flowServer();
    let seen = 0;
    return (r: RequestToSend): Reply | undefined => {
      const answer = serve(r);
      const isKind = kind === 'count' ? r.path === '/flows/count' : r.method === 'GET';
      if (!isKind || !answer) return answer;
      seen++;
      if (seen < at) return answer;
      return kind === 'count'
        ? { ...answer, json: (answer.json as number) + 1 }
        : { ...answer, json: { ...(answer.json as Obj), state: 'Late' } };
    };
  }

  test("a list whose items of others change between identical GETs (another run's queues) is judged by the run's own items", async () => {
    /** The queues of GET /deployments/{id}/work_queue_check: another client's one more at each read; `own` names the run's. */
    const queues = (own: (read: number) => string) => {
      let reads = 0;
      return (r: RequestToSend): Reply | undefined => {
        if (!r.path.endsWith('/work_queue_check')) return undefined;
        reads++;
        const others = Array.from({ length: reads }, (_, i) => ({ name: `other-run-${i}` }));
        return { status: 200, json: [...others, { name: own(reads) }, { name: 'conformance-test-run-q2' }] };
      };
    };
    const op = 'GET /deployments/{id}/work_queue_check';
    const steady = await judge(
      'methods.get-repeatable',
      op,
      await fakeContext({ server: queues(() => 'conformance-test-run-q1') }),
    );
    expect(steady).toMatchObject({
      status: 'passed',
      message: expect.stringMatching(/items of others in the list changed/),
    });
    const moving = await judge(
      'methods.get-repeatable',
      op,
      await fakeContext({ server: queues((n) => `conformance-test-run-q1-${n}`) }),
    );
    expect(outcome(moving)).toBe('answer.differs /*/name');
  });

  test("a count that changes once, inside the first round (the scheduler adding a run), is not the GETs' doing: the next round sees none", async () => {
    const fake = await fakeContext({ server: writesOnce('count', 2) });
    const verdict = await judge('methods.get-safe', 'GET /flows/{id}', fake);
    expect(outcome(verdict)).toBe('passed');
    expect(verdict.status === 'passed' && verdict.message).toMatch(
      /^round 2 saw no change, where round 1 did \(the count of \/flows changed from 100 to 101/,
    );
  });

  test("an answer that changes once (late-run marking) is not the GETs' doing: the next round answers alike", async () => {
    const fake = await fakeContext({ server: writesOnce('GET', 2) });
    const verdict = await judge('methods.get-repeatable', 'GET /flows/{id}', fake);
    expect(outcome(verdict)).toBe('passed');
    expect(verdict.status === 'passed' && verdict.message).toMatch(
      /alike; round 2 saw no change, where round 1 did \(.*state/,
    );
  });

  test('a GET that writes each time fails after three rounds; the count is then asked twice with no GET between, and holds still', async () => {
    const fake = await fakeContext({ server: flowServer('count') });
    expect(outcome(await judge('methods.get-safe', 'GET /flows/{id}', fake))).toBe('state.changed count');
    const kinds = fake.sent.map((r) => (r.path === '/flows/count' ? 'count' : r.method));
    expect(kinds.filter((k) => k === 'GET')).toHaveLength(3 * 7);
    expect(kinds.slice(-2)).toEqual(['count', 'count']);
  });

  test('the two counts with no GET between are as far apart as the rounds of GETs took: a burst of another client is met there too', async () => {
    const serve = flowServer('count');
    const at: Array<[string, number]> = [];
    const timed = (r: RequestToSend): Reply | undefined => {
      at.push([r.path === '/flows/count' ? 'count' : r.method, Date.now()]);
      // Each GET takes 2 ms: the rounds take tens of milliseconds, as they do on a real server.
      if (r.method === 'GET') for (const until = Date.now() + 2; Date.now() < until; );
      return serve(r);
    };
    expect(outcome(await judge('methods.get-safe', 'GET /flows/{id}', await fakeContext({ server: timed })))).toBe(
      'state.changed count',
    );
    const counts = at.filter(([k]) => k === 'count').map(([, t]) => t);
    const [controlBefore, controlAfter] = counts.slice(-2);
    expect(controlAfter - controlBefore).toBeGreaterThanOrEqual(controlBefore - at[0][1] - 5);
  });

  test("a count that changes with no GET between two counts is not judged: nothing tells the GETs' change from the others'", async () => {
    const serve = flowServer();
    let made = 0;
    const growing = (r: RequestToSend): Reply | undefined =>
      r.path === '/flows/count' ? { status: 200, json: 100 + made++ } : serve(r);
    const verdict = await judge('methods.get-safe', 'GET /flows/{id}', await fakeContext({ server: growing }));
    expect(verdict.status).toBe('skipped');
    expect(verdict.status === 'skipped' && verdict.message).toMatch(
      /in each of 3 rounds of GETs, and from \d+ to \d+ with no GET between two counts/,
    );
  });
});

describe('methods.delete-only-target and the count of a collection others add to', () => {
  /**
   * flowServer(), whose count answers `more` higher from its second answer on (a run the scheduler added), and
   * whose DELETE also deletes another flow: at every DELETE (the server's doing), or beside the first only
   * (another client's, at that moment).
   */
  function server({ more = 0, alsoDeletes }: { more?: number; alsoDeletes?: 'every time' | 'once' }) {
    const serve = flowServer();
    let counts = 0;
    let deletes = 0;
    return (r: RequestToSend): Reply | undefined => {
      if (r.method === 'DELETE' && !r.path.startsWith('/flows/someone-else')) {
        deletes++;
        if (alsoDeletes === 'every time' || (alsoDeletes === 'once' && deletes === 1))
          serve({ ...r, path: `/flows/someone-else-${deletes}` });
      }
      const answer = serve(r);
      if (r.path !== '/flows/count' || !answer || counts++ === 0) return answer;
      return { ...answer, json: (answer.json as number) + more };
    };
  }

  test('a count that fell by less than one, the bystander still there, passes: what was added beside the DELETE says nothing of what it took', async () => {
    const verdict = await judge(
      'methods.delete-only-target',
      'DELETE /flows/{id}',
      await fakeContext({ server: server({ more: 1 }) }),
    );
    expect(outcome(verdict)).toBe('passed');
    expect(verdict.status === 'passed' && verdict.message).toMatch(
      /^the count went from 100 to 100, less than one fewer: objects were added beside the DELETE/,
    );
  });

  test('a count that fell by more than one fails, though the bystander is still there: the DELETE took another object', async () => {
    const fake = await fakeContext({ server: server({ alsoDeletes: 'every time' }) });
    const verdict = await judge('methods.delete-only-target', 'DELETE /flows/{id}', fake);
    expect(outcome(verdict)).toBe('state.changed count');
    expect(JSON.stringify(verdict)).toMatch(/and from \d+ to \d+ when sent again on fresh objects/);
  });

  test('a count that fell by more than one once, and not when the scenario is sent again on fresh objects, is not judged: another client deleted beside it', async () => {
    const fake = await fakeContext({ server: server({ alsoDeletes: 'once' }) });
    const verdict = await judge('methods.delete-only-target', 'DELETE /flows/{id}', fake);
    expect(verdict.status).toBe('skipped');
    expect(verdict.status === 'skipped' && verdict.message).toMatch(
      /^the count went from 100 to 98 for one DELETE, but not when the DELETE was sent again on fresh objects \(98 to 97\)/,
    );
    expect(fake.sent.filter((r) => r.method === 'DELETE').length).toBe(4);
  });
});

describe('the PATCHes methods.patch-partial sends', () => {
  test('one per field it can change, then the valid request; each read before and after', async () => {
    const fake = await fakeContext({ server: flowServer() });
    const verdict = await judge('methods.patch-partial', 'PATCH /flows/{id}', fake);
    expect(verdict).toMatchObject({ status: 'passed', message: '2 PATCHes changed only what each named (tags, {})' });
    expect(fake.sent.filter((r) => r.method === 'PATCH').map((r) => r.json)).toEqual([
      { tags: ['conformance-test-run', 'conformance-test-run-patched'] },
      {},
    ]);
    expect(fake.sent.map((r) => r.method).join(' ')).toBe('GET GET PATCH GET PATCH GET');
  });

  test("a field that two reads with no write between answer differently is the server's, not a PATCH's doing", async () => {
    const fake = await fakeContext({ server: flowServer('repeat') });
    expect(outcome(await judge('methods.patch-partial', 'PATCH /flows/{id}', fake))).toBe('passed');
  });

  test('a field the profile says the server derives from the named one may change with it', async () => {
    const server = () => {
      const flow: Obj = { id: 'x', tags: [], status: 'READY' };
      return (r: RequestToSend): Reply | undefined => {
        if (r.method === 'GET') return { status: 200, json: flow };
        if (r.method !== 'PATCH') return undefined;
        Object.assign(flow, r.json as Obj, (r.json as Obj).tags ? { status: 'TAGGED' } : {});
        return { status: 204 };
      };
    };
    const bare = await fakeContext({ server: server() });
    expect(outcome(await judge('methods.patch-partial', 'PATCH /flows/{id}', bare))).toBe('state.changed /status');
    const profile = { ...prefectProfile, derivedFields: { tags: ['status'] } };
    const derived = await fakeContext({ server: server(), profile });
    expect(outcome(await judge('methods.patch-partial', 'PATCH /flows/{id}', derived))).toBe('passed');
  });
});

describe('methods.create-stored', () => {
  const creating = async (breaks?: string) => {
    const fake = await fakeContext({ server: flowServer(breaks) });
    const valid = fake.ctx.validRequest;
    fake.ctx.validRequest = async (op) => {
      const built = await valid(op);
      return { ...built, request: { ...built.request, json: { name: 'sent', tags: ['a'] } } };
    };
    return fake;
  };

  test('reads the member the create answered, by the identifier the answer holds', async () => {
    const fake = await creating();
    expect(await judge('methods.create-stored', 'POST /flows/', fake)).toMatchObject({
      status: 'passed',
      message: 'stored as created (name, tags set); names beyond ASCII stored as sent',
    });
    expect(fake.sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /flows/',
      'GET /flows/f1',
      'POST /flows/',
      'GET /flows/f1',
    ]);
    expect((fake.sent[2].json as { name: string }).name).toBe(`sent${BEYOND_ASCII}`);
  });

  test('a create refusing names beyond ASCII stored nothing to compare (said so); one crashing on them fails', async () => {
    expect(
      await judge('methods.create-stored', 'POST /flows/', await creating('create-refuses-beyond-ascii')),
    ).toMatchObject({
      status: 'passed',
      message: expect.stringMatching(/names beyond ASCII refused \(422\): nothing stored to compare/),
    });
    expect(
      outcome(await judge('methods.create-stored', 'POST /flows/', await creating('create-crashes-beyond-ascii'))),
    ).toBe('server-error 500 beyond-ascii');
  });

  test('a name stored otherwise than sent beyond ASCII (café as caf?) fails, keyed as such', async () => {
    expect(outcome(await judge('methods.create-stored', 'POST /flows/', await creating('create-stores-ascii')))).toBe(
      'state.changed /name beyond-ascii',
    );
  });

  test('a member stored otherwise than the request set it fails, keyed by the fields that differ', async () => {
    expect(outcome(await judge('methods.create-stored', 'POST /flows/', await creating('create-stores-other')))).toBe(
      'state.changed /name',
    );
  });

  test('what the request set is compared member by member, and timestamps as instants', () => {
    expect(storedAsSent({ a: 1 }, { a: 1, added: 2 })).toBe(true);
    expect(storedAsSent({ a: 1 }, { a: 2 })).toBe(false);
    expect(storedAsSent(['x'], ['x', 'y'])).toBe(false);
    expect(storedAsSent('2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00Z')).toBe(true);
    expect(storedAsSent('2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z')).toBe(false);
    expect(storedAsSent(null, null)).toBe(true);
  });
});

describe('the fields methods.patch-partial changes', () => {
  const tag = 'conformance-t';
  test('description, then tags, then each boolean, then each string the schema leaves free; none when nothing fits', () => {
    const name = { anyOf: [{ type: 'string' }, { type: 'null' }] };
    expect(
      patchFields(
        { description: 'd', name: 'n', tags: [], active: true, paused: false },
        { description: {}, name, tags: {}, active: { type: 'boolean' }, paused: { type: 'boolean' } },
        tag,
      ),
    ).toEqual([
      ['description', 'conformance-t patched'],
      ['tags', ['conformance-t', 'conformance-t-patched']],
      ['active', false],
      ['paused', true],
      ['name', 'n-patched'],
    ]);
    // A field the read does not show cannot be seen changed.
    expect(patchFields({ name: 'run' }, { name, description: {} }, tag)).toEqual([['name', 'run-patched']]);
    // Strings the schema constrains are left alone: a format, a pattern, an enum, a short maximum.
    for (const constrained of [
      { type: 'string', format: 'date-time' },
      { type: 'string', pattern: '^[a-z]+$' },
      { type: 'string', enum: ['a', 'b'] },
      { type: 'string', maxLength: 10 },
    ])
      expect(patchFields({ field: 'x' }, { field: constrained }, tag)).toEqual([]);
    // An object whose schema lists its members gets none added; one whose schema takes any object does.
    const policy = { type: 'object', properties: { retries: {} } };
    expect(patchFields({ policy: { retries: 1 } }, { policy }, tag)).toEqual([]);
    expect(patchFields({ data: {} }, { data: { type: 'object' } }, tag)).toEqual([
      ['data', { conformance: 'conformance-t-patched' }],
    ]);
    // An object's first string member that is not a hidden secret is changed; the rest is kept.
    expect(patchFields({ data: { secret: '****', url: 'u', n: 1 } }, { data: {} }, tag)).toEqual([
      ['data', { secret: '****', url: 'conformance-t-patched', n: 1 }],
    ]);
  });
});
