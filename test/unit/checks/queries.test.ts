/**
 * The query families (filters, sorting, pagination, aggregates) on an in-memory server that answers as
 * the oracle does: each check passes there, and fails with its kind and key when one behaviour breaks.
 */
import { describe, expect, test } from 'vitest';
import { SendingStopped } from '../../../src/http/client.js';
import type { RequestToSend } from '../../../src/openapi/request.js';
import { fakeContext, judge, type Obj, outcome, type Reply } from './fake.js';
import { queryServer } from './queryServer.js';

/** The server, until the time box stops sending after `n` filter requests (the client then throws for every request). */
function stoppedAfter(server: (r: RequestToSend) => Reply | undefined, n: number) {
  let sent = 0;
  return (r: RequestToSend) => {
    if (r.path.endsWith('/filter') && ++sent > n) throw new SendingStopped('not run: the budget of 1 s was spent');
    return server(r);
  };
}

async function verdict(id: string, op: string, breaks?: string, variant?: string) {
  const { server, corpus } = await queryServer(breaks);
  return judge(id, op, await fakeContext({ server, corpus }), variant);
}

describe('query checks', () => {
  test.each([
    ['filters.oracle', 'POST /flows/filter', 'ignore-filter', /^oracle.mismatch /],
    [
      'filters.seed-example',
      'POST /flows/filter',
      'ignore-filter',
      /^oracle.mismatch flows.tags.all_ flow_runs.state.type.any_$/,
    ],
    [
      'filters.any-empty-matches-nothing',
      'POST /flow_runs/filter',
      'ignore-filter',
      /^oracle.mismatch flow_runs\..+\.any_$/,
    ],
    ['sorting.default', 'POST /flows/filter', 'ignore-default-sort', /^order.violated NAME_ASC$/],
    ['pagination.windows', 'POST /flows/filter', 'offset-off-by-one', /^aggregate.mismatch window$/],
    ['pagination.limit-zero', 'POST /flows/filter', 'ignore-limit', /^aggregate.mismatch limit 0$/],
    ['pagination.maximum-limit', 'POST /flows/filter', 'accept-bad-limit', /^input.accepted 200$/],
    ['pagination.negative-refused', 'POST /flows/filter', 'accept-bad-limit', /^input.accepted limit 200$/],
    ['pagination.offset-past-end', 'POST /deployments/filter', 'ignore-offset', /^aggregate.mismatch past the end$/],
    ['aggregates.count-agrees', 'POST /flows/count', 'count-off', /^aggregate.mismatch count$/],
    ['aggregates.paginate-agrees', 'POST /flows/paginate', 'pages-off', /^aggregate.mismatch pages$/],
    ['aggregates.history', 'POST /flow_runs/history', 'history-shift', /^aggregate.mismatch bin counts$/],
    ['aggregates.history-invalid-interval', 'POST /flow_runs/history', 'tiny-interval', /^input.accepted 200$/],
  ])('%s on %s: passes, and judges the server that breaks it (%s)', async (id, op, breaks, failure) => {
    expect(outcome(await verdict(id, op))).toBe('passed');
    expect(outcome(await verdict(id, op, breaks))).toMatch(failure);
  });

  test("aggregates.count-agrees asks every count ANDed with the run's ids: never `operator: or_`, which would count the whole server", async () => {
    const { server, corpus } = await queryServer();
    const fake = await fakeContext({ server, corpus });
    expect(outcome(await judge('aggregates.count-agrees', 'POST /flows/count', fake))).toBe('passed');
    const counts = fake.sent.filter((r) => r.path === '/flows/count').map((r) => (r.json as { flows: Obj }).flows);
    expect(counts.length).toBeGreaterThanOrEqual(3);
    for (const own of counts) {
      expect(own.operator).toBeUndefined();
      expect((own.id as { any_?: unknown[] }).any_?.length).toBeGreaterThan(0);
    }
  });

  test('filters.seed-example without a corpus of flow runs (the target refused their creates): skipped, saying why', async () => {
    const { server, corpus } = await queryServer();
    // As buildCorpus leaves it: no key for a collection of which nothing was made.
    const { flow_runs: _, ...made } = corpus.corpus;
    const refused = {
      ...corpus,
      corpus: made,
      missing: { flow_runs: 'POST /flow_runs/ answered 503: {"exception_message":"Service Unavailable"}' },
    };
    const verdict = await judge(
      'filters.seed-example',
      'POST /flows/filter',
      await fakeContext({ server, corpus: refused }),
    );
    expect(verdict).toMatchObject({
      status: 'skipped',
      message: expect.stringMatching(/^no corpus of flow_runs: POST \/flow_runs\/ answered 503/),
    });
  });

  test("filters.oracle reads an or_ filter's answer past its first page: on a server crowded with matching objects of others, the run's own lie further on", async () => {
    const sent: Obj[] = [];
    /** filters.oracle on POST /flows/filter of the server, every body it sends kept. */
    const oracleOn = async ({ server, corpus }: Awaited<ReturnType<typeof queryServer>>) => {
      const logged = (r: RequestToSend) => {
        if (r.path === '/flows/filter') sent.push(r.json as Obj);
        return server(r);
      };
      return judge(
        'filters.oracle',
        'POST /flows/filter',
        await fakeContext({ server: logged, corpus, settings: { runs: 40 } }),
      );
    };
    expect(outcome(await oracleOn(await queryServer(undefined, 250)))).toBe('passed');
    expect(sent.filter((b) => b.offset === 200).length).toBeGreaterThan(0);
    // Past the pages it reads, what the filter should not select is still judged, and the rest is said.
    const beyond = await oracleOn(await queryServer(undefined, 2000));
    expect(outcome(beyond)).toBe('passed');
    expect(JSON.stringify(beyond)).toMatch(/or_ filter\(s\) selected more than 2000 of the server's objects/);
    expect(outcome(await oracleOn(await queryServer('ignore-filter', 250)))).toMatch(/^oracle.mismatch /);
    // A later page refused fails with that page's answer, not the first page's.
    const refused = await oracleOn(await queryServer('refuse-later-pages', 250));
    expect(outcome(refused)).toMatch(/^oracle.mismatch /);
    expect(JSON.stringify(refused)).toMatch(/→ server 500/);
  });

  test('filters.oracle stopped by the time box: not run (the stop is thrown) when all agreed so far; a mismatch seen before the stop fails', async () => {
    const agreeing = await queryServer();
    const stopped = fakeContext({ server: stoppedAfter(agreeing.server, 20), corpus: agreeing.corpus });
    await expect(judge('filters.oracle', 'POST /flows/filter', await stopped)).rejects.toBeInstanceOf(SendingStopped);
    const broken = await queryServer('ignore-filter');
    const seen = await judge(
      'filters.oracle',
      'POST /flows/filter',
      await fakeContext({ server: stoppedAfter(broken.server, 20), corpus: broken.corpus }),
    );
    expect(outcome(seen)).toMatch(/^oracle.mismatch /);
  });

  /** The server, answering `busy` (503 or 429 through the retries, or no answer) to every `nth` query of the families. */
  function busyEvery(server: (r: RequestToSend) => Reply | undefined, nth: number, busy: Reply) {
    let queries = 0;
    return (r: RequestToSend) =>
      /\/(filter|count|paginate|history)$/.test(r.path) && ++queries % nth === 0 ? busy : server(r);
  }

  test.each([
    ['filters.oracle', 'POST /flows/filter'],
    ['filters.seed-example', 'POST /flows/filter'],
    ['filters.any-empty-matches-nothing', 'POST /flow_runs/filter'],
    ['sorting.default', 'POST /flows/filter'],
    ['pagination.windows', 'POST /flows/filter'],
    ['pagination.limit-zero', 'POST /flows/filter'],
    ['pagination.maximum-limit', 'POST /flows/filter'],
    ['pagination.negative-refused', 'POST /flows/filter'],
    ['pagination.offset-past-end', 'POST /deployments/filter'],
    ['aggregates.history', 'POST /flow_runs/history'],
    ['aggregates.history-invalid-interval', 'POST /flow_runs/history'],
  ])('%s on %s: a busy answer to every query is load, not judged; never a failure', async (id, op) => {
    const { server, corpus } = await queryServer();
    for (const busy of [
      { status: 503, json: { exception_message: 'Service Unavailable' } },
      { status: 429 },
      { status: 0 },
    ]) {
      const v = await judge(id, op, await fakeContext({ server: busyEvery(server, 1, busy), corpus }));
      expect(v, `${busy.status}`).toMatchObject({
        status: 'skipped',
        message: expect.stringMatching(/load, not judged/),
      });
    }
  });

  test.each([
    ['filters.oracle', 'POST /flows/filter'],
    ['pagination.windows', 'POST /flows/filter'],
  ])(
    '%s on %s: the queries a busy server did not answer are not judged, the others are, and the count is said',
    async (id, op) => {
      for (const broken of [undefined, id === 'filters.oracle' ? 'ignore-filter' : 'offset-off-by-one']) {
        const { server, corpus } = await queryServer(broken);
        const busy = { status: 503, json: { exception_message: 'Service Unavailable' } };
        const v = await judge(
          id,
          op,
          await fakeContext({ server: busyEvery(server, 3, busy), corpus, settings: { runs: 20 } }),
        );
        if (broken) expect(outcome(v)).toMatch(/^(oracle|aggregate)\.mismatch /);
        else
          expect(v).toMatchObject({
            status: 'passed',
            message: expect.stringMatching(/; \d+ met a busy server through the retries \(load, not judged\)/),
          });
      }
    },
  );

  test.each([
    ['filters.oracle', 'POST /flows/filter', 'ignore-filter', '/flows/filter'],
    ['pagination.windows', 'POST /flows/filter', 'offset-off-by-one', '/flows/filter'],
    ['aggregates.count-agrees', 'POST /flows/count', 'count-off', '/flows/count'],
  ])(
    '%s sends no request body twice (a draw met again is judged by its first answer), and still fails %s',
    async (id, op, breaks, path) => {
      for (const broken of [undefined, breaks]) {
        const { server, corpus } = await queryServer(broken);
        const bodies: string[] = [];
        const logged = (r: RequestToSend) => {
          if (r.path === path) bodies.push(JSON.stringify(r.json));
          return server(r);
        };
        // Enough runs that the seed draws a body again (the default 5 of the fake may not).
        const v = await judge(id, op, await fakeContext({ server: logged, corpus, settings: { runs: 40 } }));
        expect(outcome(v)).toEqual(broken ? expect.stringMatching(/^(oracle|aggregate)\.mismatch /) : 'passed');
        // pagination sends the whole result once, then the windows: each window once. A failing count ends the run.
        if (!broken) expect(bodies.length).toBeGreaterThan(5);
        expect(new Set(bodies).size).toBe(bodies.length);
      }
    },
  );

  test('sorting.by-value: one verdict per sort value; a reversed sort fails with the value as its key', async () => {
    const { ctx } = await fakeContext();
    const check = (await import('../../../src/checks/core/registry.js')).BUILT_IN_CHECKS.find(
      (c) => c.id === 'sorting.by-value',
    )!;
    const op = ctx.model.operations.find((o) => o.key === 'POST /flows/filter')!;
    const values = check.variants!(op, ctx);
    expect(values).toEqual(expect.arrayContaining(['NAME_ASC', 'NAME_DESC', 'CREATED_DESC']));
    for (const value of ['NAME_ASC', 'CREATED_DESC']) {
      expect(outcome(await verdict('sorting.by-value', 'POST /flows/filter', undefined, value))).toBe('passed');
      expect(outcome(await verdict('sorting.by-value', 'POST /flows/filter', 'reverse-sort', value))).toBe(
        `order.violated ${value}`,
      );
    }
  });

  test('an empty pattern is implementation-defined: a server that applies it as "%" passes, and is reported', async () => {
    const dropped = await verdict('filters.oracle', 'POST /artifacts/filter');
    expect(dropped.status).toBe('passed');
    expect(dropped.status === 'passed' && dropped.message).not.toMatch(/implementation-defined/);
    const applied = await verdict('filters.oracle', 'POST /artifacts/filter', 'apply-empty-pattern');
    expect(applied.status).toBe('passed');
    expect(applied.status === 'passed' && applied.message).toMatch(
      /implementation-defined: the server applies an empty pattern as "%" \(null excluded\) on .*artifacts\.key\.like_/,
    );
    expect(outcome(await verdict('filters.oracle', 'POST /artifacts/filter', 'ignore-filter'))).toMatch(
      /^oracle.mismatch /,
    );
  });

  test("start_time on a run not started is implementation-defined: an older release's reading passes, and is reported", async () => {
    const current = await verdict('filters.oracle', 'POST /flow_runs/filter');
    expect(current.status === 'passed' && current.message).not.toMatch(/start_time alone/);
    const older = await verdict('filters.oracle', 'POST /flow_runs/filter', 'start-time-alone');
    expect(older.status).toBe('passed');
    expect(older.status === 'passed' && older.message).toMatch(
      /implementation-defined: start_time before_\/after_ compare start_time alone/,
    );
  });

  test('a failing generated filter names its seed and the path to replay it', async () => {
    const v = await verdict('filters.oracle', 'POST /flows/filter', 'ignore-filter');
    expect(v.status === 'failed' && v.seed).toBe(1);
    expect(v.status === 'failed' && typeof v.path).toBe('string');
  });

  test('without a corpus (read-only mode) the query checks are not judged', async () => {
    const { server } = await queryServer();
    const fake = await fakeContext({ server, settings: { readOnly: true } });
    expect(outcome(await judge('filters.oracle', 'POST /flows/filter', fake))).toBe('skipped');
  });
});
