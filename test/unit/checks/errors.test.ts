/** Family `errors` on scripted answers: malformed identifiers, JSON sent as text, error bodies a client can read. */
import { describe, expect, test } from 'vitest';
import { applies, fakeContext, judge, objectsMade, outcome, prepare } from './fake.js';

describe('errors checks', () => {
  test('errors.malformed-id: 404 or 422 passes; a 500 fails', async () => {
    for (const status of [404, 422]) {
      const fake = await fakeContext({ server: () => ({ status, json: { detail: 'x' } }) });
      expect(outcome(await judge('errors.malformed-id', 'GET /flows/{id}', fake))).toBe('passed');
      expect(fake.sent[0].path).toBe('/flows/not-a-uuid');
    }
    // A DELETE that names nothing a server could read is refused by its path: it takes no write's turn.
    const deleting = await fakeContext({ server: () => ({ status: 404, json: { detail: 'x' } }) });
    expect(outcome(await judge('errors.malformed-id', 'DELETE /flows/{id}', deleting))).toBe('passed');
    expect(deleting.sent.at(-1)).toMatchObject({
      method: 'DELETE',
      path: '/flows/not-a-uuid',
      refusedBeforeData: true,
    });
    const broken = await fakeContext({ server: () => ({ status: 500, json: {} }) });
    expect(outcome(await judge('errors.malformed-id', 'GET /flows/{id}', broken))).toBe('status.unexpected 500');
  });

  test('errors.text-plain-ignored: a body read as JSON or refused passes; one answered as no body fails', async () => {
    const FLOWS = [{ id: 'a', name: 'a' }];
    // How the server treats a text/plain body: reads it as JSON, ignores it, or refuses it.
    const serving = (textPlain: 'read' | 'ignored' | 'refused', empty = false) =>
      fakeContext({
        server: (r) => {
          if (r.template !== '/flows/filter') return { status: 201, json: { id: 'made' } };
          const isText = r.headers?.['content-type'] === 'text/plain';
          if (isText && textPlain === 'refused') return { status: 422, json: { detail: [] } };
          const body = isText ? (textPlain === 'read' ? JSON.parse(r.raw!) : undefined) : r.json;
          return { status: 200, json: empty || body?.limit === 0 ? [] : FLOWS };
        },
      });
    const verdictOf = async (fake: Awaited<ReturnType<typeof serving>>) =>
      outcome(await judge('errors.text-plain-ignored', 'POST /flows/filter', fake));
    expect(await verdictOf(await serving('read'))).toBe('passed');
    expect(await verdictOf(await serving('refused'))).toBe('passed');
    const ignoring = await serving('ignored');
    expect(await verdictOf(ignoring)).toBe('input.ignored 200');
    // The JSON body, the same as text/plain, then no body at all, twice.
    expect(ignoring.sent.filter((r) => r.template === '/flows/filter').map((r) => [r.json, r.raw])).toEqual([
      [{ limit: 0 }, undefined],
      [undefined, '{"limit":0}'],
      [undefined, undefined],
      [undefined, undefined],
    ]);
    // Where limit 0 answers as no body does, nothing tells read from ignored.
    expect(await verdictOf(await serving('ignored', true))).toBe('skipped');
  });

  test('errors.text-plain-ignored: a field that changes on every read (a duration from the clock) does not hide an ignored body', async () => {
    let reads = 0;
    const fake = await fakeContext({
      server: (r) => {
        if (r.template !== '/flows/filter') return { status: 201, json: { id: 'made' } };
        const body = (r.headers?.['content-type'] === 'text/plain' ? undefined : r.json) as
          | { limit?: number }
          | undefined;
        return { status: 200, json: body?.limit === 0 ? [] : [{ id: 'a', duration: ++reads }] };
      },
    });
    expect(outcome(await judge('errors.text-plain-ignored', 'POST /flows/filter', fake))).toBe('input.ignored 200');
  });

  test('errors.text-plain-ignored: a collection that grows by itself between two reads side by side does not pass an ignored body', async () => {
    // A server whose services store an event after the second read: the text/plain answer has one event, the
    // answers without a body after it two.
    let reads = 0;
    const fake = await fakeContext({
      server: (r) => {
        if (r.template !== '/flows/filter') return { status: 201, json: { id: 'made' } };
        reads++;
        const body = (r.headers?.['content-type'] === 'text/plain' ? undefined : r.json) as
          | { limit?: number }
          | undefined;
        const events = reads <= 2 ? [{ id: 'a' }] : [{ id: 'a' }, { id: 'b' }];
        return { status: 200, json: body?.limit === 0 ? [] : events };
      },
    });
    expect(outcome(await judge('errors.text-plain-ignored', 'POST /flows/filter', fake))).toBe('input.ignored 200');
    // The text/plain read asked again between two reads without a body, side by side.
    expect(fake.sent.filter((r) => r.template === '/flows/filter').length).toBe(7);
  });

  test('errors.text-plain-ignored: a collection that never holds still between reads tells nothing, and passes nothing', async () => {
    // Every read sees one more event than the one before (Prefect's event persister, services on).
    let reads = 0;
    const growing = (textPlain: 'read' | 'ignored') =>
      fakeContext({
        server: (r) => {
          if (r.template !== '/flows/filter') return { status: 201, json: { id: 'made' } };
          reads++;
          const isText = r.headers?.['content-type'] === 'text/plain';
          const body = (isText ? (textPlain === 'read' ? JSON.parse(r.raw!) : undefined) : r.json) as
            | { limit?: number }
            | undefined;
          return { status: 200, json: body?.limit === 0 ? [] : Array.from({ length: reads }, (_, i) => ({ id: i })) };
        },
      });
    const ignoring = await growing('ignored');
    expect(outcome(await judge('errors.text-plain-ignored', 'POST /flows/filter', ignoring))).toBe('skipped');
    // The first four reads, then three rounds of three.
    expect(ignoring.sent.filter((r) => r.template === '/flows/filter').length).toBe(13);
    // A body read as JSON still passes at once, however the collection moves.
    expect(outcome(await judge('errors.text-plain-ignored', 'POST /flows/filter', await growing('read')))).toBe(
      'passed',
    );
  });

  test('errors.text-plain-ignored, prepared, sends only reads: it runs quiet, beside other checks that only read', async () => {
    const fake = await fakeContext({
      server: (r) => (r.template === '/flows/filter' ? { status: 200, json: r.json ? [] : [{ id: 'a' }] } : undefined),
    });
    const made = objectsMade(fake);
    await prepare('errors.text-plain-ignored', 'POST /flows/filter', fake);
    expect(made).toEqual(['/flows shared']);
    const prepared = fake.sent.length;
    await judge('errors.text-plain-ignored', 'POST /flows/filter', fake);
    expect(made).toEqual(['/flows shared']);
    const judged = fake.sent.slice(prepared);
    expect(judged.length).toBeGreaterThanOrEqual(3);
    expect(judged.every((r) => r.method === 'POST' && r.template === '/flows/filter')).toBe(true);
  });

  test('errors.text-plain-ignored never applies to a write: an ignored body would act unscoped', async () => {
    const fake = await fakeContext();
    expect(applies('errors.text-plain-ignored', 'POST /flows/filter', fake)).toBe(true);
    expect(applies('errors.text-plain-ignored', 'POST /flow_runs/bulk_delete', fake)).toBe(false);
    expect(applies('errors.text-plain-ignored', 'POST /deployments/bulk_delete', fake)).toBe(false);
  });

  test("errors.wrong-content-type: judges the exercise's text/plain exchange; a 4xx passes, a 201 or a 500 fails", async () => {
    const answered = (reply: { status: number; json: unknown }) =>
      fakeContext({
        exercised: {
          'POST /flows/': [
            { kind: 'recipe' as const, reply: { status: 201, json: {} } },
            { kind: 'wrong-content-type' as const, reply },
          ],
        },
      });
    const good = await answered({ status: 422, json: { detail: [] } });
    expect(outcome(await judge('errors.wrong-content-type', 'POST /flows/', good))).toBe('passed');
    expect(good.sent).toEqual([]);
    expect(
      outcome(await judge('errors.wrong-content-type', 'POST /flows/', await answered({ status: 201, json: {} }))),
    ).toBe('input.accepted 201');
    expect(
      outcome(await judge('errors.wrong-content-type', 'POST /flows/', await answered({ status: 500, json: {} }))),
    ).toBe('input.accepted 500');
    // An exercise that sent no body as text/plain (no JSON body) gives it nothing to judge.
    const none = await fakeContext({
      exercised: { 'POST /flows/': [{ kind: 'recipe' as const, reply: { status: 201, json: {} } }] },
    });
    expect(applies('errors.wrong-content-type', 'POST /flows/', none)).toBe(false);
  });

  test('errors.4xx-json: JSON 4xx pass; an HTML one fails; without any 4xx it does not apply', async () => {
    type Answer = { status: number; json?: unknown; text?: string; contentType?: string };
    const contextAnswering = (reply: Answer) =>
      fakeContext({ exercised: { 'GET /flows/{id}': [{ kind: 'unknown', reply }] } });
    const judged = async (reply: Answer) =>
      outcome(await judge('errors.4xx-json', 'GET /flows/{id}', await contextAnswering(reply)));
    expect(await judged({ status: 404, json: { detail: 'x' } })).toBe('passed');
    expect(await judged({ status: 404, text: '<h1>no</h1>', contentType: 'text/html' })).toBe(
      'content-type.mismatch 404 text/html',
    );
    expect(await judged({ status: 404, text: '{"detail":', contentType: 'application/json' })).toBe(
      'json.unparsable 404 application/json',
    );
    expect(applies('errors.4xx-json', 'GET /flows/{id}', await contextAnswering({ status: 200, json: {} }))).toBe(
      false,
    );
    expect(applies('errors.4xx-json', 'GET /flows/{id}', await contextAnswering({ status: 404, json: {} }))).toBe(true);
  });
});
