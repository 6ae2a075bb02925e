/** Family `auth` on a scripted gate: refusals without and with wrong credentials, service with the right ones. */
import { describe, expect, test } from 'vitest';
import type { RequestToSend } from '../../../src/openapi/request.js';
import { fakeContext, judge, outcome } from './fake.js';

/** A gate that serves a request with `Bearer right` (or lets every request in when open). */
const gate = (open: boolean) => (r: RequestToSend) =>
  open || (!r.withoutAuth && !r.headers?.authorization)
    ? { status: 200, json: [] }
    : { status: 401, json: { detail: 'no' } };

describe('auth checks', () => {
  const cases: Array<[string, string]> = [
    ['auth.required', 'status.unexpected 200'],
    ['auth.wrong-refused', 'status.unexpected 200'],
  ];
  test.each(cases)('%s passes behind a gate and fails when the gate is open', async (id, failure) => {
    const settings = { credentials: 'bearer' as const };
    expect(outcome(await judge(id, 'POST /flows/filter', await fakeContext({ settings, server: gate(false) })))).toBe(
      'passed',
    );
    expect(outcome(await judge(id, 'POST /flows/filter', await fakeContext({ settings, server: gate(true) })))).toBe(
      failure,
    );
  });

  test('auth.right-accepted passes when served, fails when refused', async () => {
    const settings = { credentials: 'basic' as const };
    expect(
      outcome(
        await judge('auth.right-accepted', 'POST /flows/filter', await fakeContext({ settings, server: gate(false) })),
      ),
    ).toBe('passed');
    const refusing = await fakeContext({ settings, server: () => ({ status: 403, json: {} }) });
    expect(outcome(await judge('auth.right-accepted', 'POST /flows/filter', refusing))).toBe('status.unexpected 403');
  });

  test('wrong credentials are of the configured kind', async () => {
    const fake = await fakeContext({ settings: { credentials: 'basic' }, server: gate(false) });
    await judge('auth.wrong-refused', 'POST /flows/filter', fake);
    expect(fake.sent[0].headers?.authorization).toMatch(/^Basic /);
  });

  test('without credentials configured, nothing is judged; the health exemption is reported either way', async () => {
    expect(
      outcome(await judge('auth.required', 'POST /flows/filter', await fakeContext({ server: gate(false) }))),
    ).toBe('skipped');
    const settings = { credentials: 'bearer' as const };
    expect(
      outcome(await judge('auth.health-exemption', 'GET /health', await fakeContext({ settings, server: gate(true) }))),
    ).toBe('passed');
    expect(
      outcome(
        await judge('auth.health-exemption', 'GET /health', await fakeContext({ settings, server: gate(false) })),
      ),
    ).toBe('passed');
  });
});
