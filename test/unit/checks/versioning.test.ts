/** Family `versioning` on a scripted server that reads the version header as Prefect documents it. */
import { describe, expect, test } from 'vitest';
import type { RequestToSend } from '../../../src/openapi/request.js';
import { fakeContext, judge, outcome } from './fake.js';

/** Serves GET /version; refuses a malformed or too old x-prefect-api-version unless `lax`. */
const versioned =
  (lax = false) =>
  (r: RequestToSend) => {
    if (r.path === '/version') return { status: 200, json: '0.8.4' };
    const v = Object.entries(r.headers ?? {}).find(([k]) => k.toLowerCase() === 'x-prefect-api-version')?.[1];
    if (!lax && v !== undefined && (!/^\d+\.\d+\.\d+$/.test(v) || v < '0.8.0'))
      return { status: 400, json: { detail: 'bad version' } };
    return { status: 200, json: [] };
  };

describe('versioning checks', () => {
  const op = 'POST /flows/filter';
  test.each([
    ['versioning.current-accepted', versioned(), () => ({ status: 400, json: {} }), 'skipped'],
    ['versioning.missing-accepted', versioned(), () => ({ status: 400, json: {} }), 'status.unexpected 400'],
    ['versioning.malformed-refused', versioned(), versioned(true), 'status.unexpected 200'],
    ['versioning.below-minimum-refused', versioned(), versioned(true), 'status.unexpected 200'],
  ])('%s', async (id, good, bad, failure) => {
    expect(outcome(await judge(id, op, await fakeContext({ server: good })))).toBe('passed');
    expect(outcome(await judge(id, op, await fakeContext({ server: bad })))).toBe(failure);
  });

  test('the current version refused fails; the header is the one the document names', async () => {
    const fake = await fakeContext({
      server: (r) => (r.path === '/version' ? { status: 200, json: '0.8.4' } : { status: 400, json: {} }),
    });
    expect(outcome(await judge('versioning.current-accepted', op, fake))).toBe('status.unexpected 400');
    expect(Object.keys(fake.sent[1].headers ?? {})).toEqual(['x-prefect-api-version']);
  });
});
