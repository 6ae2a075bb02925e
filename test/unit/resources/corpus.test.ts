import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Obj } from '../../../src/openapi/json.js';
import type { RequestToSend } from '../../../src/openapi/request.js';
import { buildCorpus } from '../../../src/resources/corpus.js';
import { exchange, referenceModel } from '../checks/fake.js';

/**
 * A server whose n-th create answers 503 where `refused[n]` says so (a busy target, after the client's
 * retries), and which serves the read-back filter from what it made.
 */
function busyServer(refused: boolean[]) {
  const made = new Map<string, Obj>();
  let creates = 0;
  return {
    made,
    send: async (r: RequestToSend) => {
      const [, key, action] = /^\/(\w+)\/(\w*)$/.exec(r.path) ?? [];
      const body = (r.json ?? {}) as Obj;
      if (action === '') {
        if (refused[creates++]) return exchange(r, { status: 503, json: { exception_message: 'Service Unavailable' } });
        const obj = { ...body, id: `${key}-${made.size}` };
        made.set(String(obj.id), obj);
        return exchange(r, { status: 201, json: obj });
      }
      const ids = ((body[key] as Obj).id as Obj).any_ as string[];
      return exchange(r, { status: 200, json: ids.map((id) => made.get(id)).filter(Boolean) });
    },
  };
}

describe('buildCorpus on a target that refuses some creates', () => {
  it('makes what it can, names no parent it did not make, and says why a collection is short', async () => {
    const model = await referenceModel();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { maxLength: 40 }), async (refused) => {
        const server = busyServer(refused);
        const built = await buildCorpus({ model, runTag: 'conformance-test-run', send: server.send });
        for (const run of built.corpus.flow_runs ?? []) expect(server.made.has(String(run.flow_id))).toBe(true);
        for (const key of ['task_runs', 'artifacts'])
          for (const obj of built.corpus[key] ?? []) expect(server.made.has(String(obj.flow_run_id))).toBe(true);
        if (refused.slice(0, 6).some(Boolean)) expect(built.missing.flows).toMatch(/answered 503/);
        const all = Object.values(built.corpus).flat();
        expect(all.length).toBe(server.made.size);
      }),
      { numRuns: 150 },
    );
  });

  it('makes the whole corpus when every create is served', async () => {
    const model = await referenceModel();
    const built = await buildCorpus({ model, runTag: 'conformance-test-run', send: busyServer([]).send });
    expect(Object.fromEntries(Object.entries(built.corpus).map(([k, v]) => [k, v.length]))).toEqual({
      flows: 6,
      deployments: 3,
      flow_runs: 9,
      task_runs: 6,
      artifacts: 4,
    });
    expect(built.missing).toEqual({});
  });

  it('sends the creates of a level side by side, in five round trips, and keeps the order of its requests', async () => {
    const model = await referenceModel();
    const served = busyServer([]);
    // Answers are held until every request that can be sent is, then given in reverse: each release is a round trip.
    let held: Array<() => void> = [];
    let roundTrips = 0;
    let widest = 0;
    const release = () => {
      roundTrips++;
      widest = Math.max(widest, held.length);
      const now = held.reverse();
      held = [];
      for (const answer of now) answer();
    };
    const send = (r: RequestToSend) =>
      new Promise<Awaited<ReturnType<typeof served.send>>>((resolve) => {
        if (held.length === 0) setTimeout(release, 0);
        held.push(() => void served.send(r).then(resolve));
      });
    const built = await buildCorpus({ model, runTag: 'conformance-test-run', send });
    expect(roundTrips).toBe(5);
    expect(widest).toBe(10);
    // Prefect's document refuses `%` in a flow's name (`^[^/%&><]+$`): the corpus sends the form it admits.
    expect(built.corpus.flows.map((f) => f.name)).toEqual(
      ['Alpha', 'alpha', 'd_1', 'd-1-1', '50-off', 'Zeta'].map((n) => `conformance-test-run-${n}`),
    );
    expect(built.corpus.flow_runs.map((r) => r.name)).toEqual(
      Array.from({ length: 9 }, (_, i) => `conformance-test-run-run-${i % 2 ? 'X' : 'x'}${i}`),
    );
  });
});
