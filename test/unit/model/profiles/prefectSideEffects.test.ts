/** What Prefect makes on a run's behalf, as its profile finds it: by the run's tag and by the run's own runs. */
import { describe, expect, test } from 'vitest';
import { prefectProfile } from '../../../../src/model/profiles/prefect.js';
import type { Answer, RequestToSend } from '../../../../src/openapi/request.js';

function server(answers: (r: RequestToSend) => unknown[]) {
  const sent: RequestToSend[] = [];
  const send = async (r: RequestToSend): Promise<Answer> => {
    sent.push(r);
    const json = answers(r);
    return { status: 200, body: JSON.stringify(json), json };
  };
  return { send, sent };
}

describe('prefect profile: made for the run', () => {
  test("work queues named with the run's tag, and the artifacts of the run's flow and task runs", async () => {
    const s = server((r) =>
      r.path === '/work_queues/filter'
        ? [{ id: 'q1' }]
        : JSON.stringify(r.json).includes('flow_run_id')
          ? [{ id: 'a1' }, { id: 'a2' }]
          : [{ id: 'a2' }],
    );
    const ids: Record<string, string[]> = { '/flow_runs': ['fr1'], '/task_runs': ['tr1'] };
    const found = await prefectProfile.madeForRun!(s.send, { runTag: 'ctag', ids: (c) => ids[c] ?? [] });
    expect(found.map((f) => f.path)).toEqual(['/work_queues/q1', '/artifacts/a1', '/artifacts/a2']);
    expect(s.sent.map((r) => r.json)).toEqual([
      { work_queues: { name: { startswith_: ['ctag'] } }, limit: 200, offset: 0 },
      { artifacts: { flow_run_id: { any_: ['fr1'] } }, limit: 200, offset: 0 },
      { artifacts: { task_run_id: { any_: ['tr1'] } }, limit: 200, offset: 0 },
    ]);
  });

  test('sends its filters side by side: each is sent before any is answered', async () => {
    let answered = 0;
    const sentBeforeAnAnswer: string[] = [];
    const send = async (r: RequestToSend): Promise<Answer> => {
      if (answered === 0) sentBeforeAnAnswer.push(r.path);
      await new Promise((done) => setTimeout(done, 5));
      answered++;
      return { status: 200, body: '[]', json: [] };
    };
    const ids: Record<string, string[]> = { '/flow_runs': ['fr1'], '/task_runs': ['tr1'] };
    await prefectProfile.madeForRun!(send, { runTag: 'ctag', ids: (c) => ids[c] ?? [] });
    expect(sentBeforeAnAnswer).toEqual(['/work_queues/filter', '/artifacts/filter', '/artifacts/filter']);
  });

  test('pages through a filter, 200 at a time', async () => {
    const s = server((r) => {
      const offset = (r.json as { offset: number }).offset;
      return r.path === '/work_queues/filter'
        ? Array.from({ length: offset === 0 ? 200 : 3 }, (_, i) => ({ id: `q${offset + i}` }))
        : [];
    });
    const found = await prefectProfile.madeForRun!(s.send, { runTag: 'ctag', ids: () => [] });
    expect(found).toHaveLength(203);
    expect(s.sent).toHaveLength(2);
  });
});

describe('prefect profile: a concurrency limit made for a name increment or decrement did not find', () => {
  const rule = prefectProfile.madeForNames!['POST /v2/concurrency_limits/decrement'];
  const answeredAt = Date.parse('Fri, 27 Nov 2026 22:30:31 GMT');

  test('is inactive and made within the second of the answer that listed it', () => {
    expect(rule.madeBy({ active: false, created: '2026-11-27T22:30:31.412Z' }, answeredAt)).toBe(true);
    expect(rule.madeBy({ active: false, created: '2026-11-27T22:30:30.950Z' }, answeredAt)).toBe(true);
  });

  test('one made long before, or active (made by someone on purpose), was read, not made', () => {
    expect(rule.madeBy({ active: false, created: '2026-11-27T21:00:00.000Z' }, answeredAt)).toBe(false);
    expect(rule.madeBy({ active: true, created: '2026-11-27T22:30:31.412Z' }, answeredAt)).toBe(false);
    expect(rule.madeBy({ active: false }, answeredAt)).toBe(false);
  });

  test('increment and decrement both make them, and nothing else is declared', () => {
    expect(Object.keys(prefectProfile.madeForNames!).sort()).toEqual([
      'POST /v2/concurrency_limits/decrement',
      'POST /v2/concurrency_limits/increment',
    ]);
  });
});
