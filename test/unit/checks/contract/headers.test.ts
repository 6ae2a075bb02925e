/** The grammar the RFCs give the headers an answer sends, and the headers a document declares for a status. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isRetryAfter, isUriReference, judgeHeaders } from '../../../../src/checks/contract/headers.js';
import type { Sent } from '../../../../src/checks/core/context.js';
import type { Operation } from '../../../../src/openapi/operations.js';
import { exchange } from '../fake.js';

describe('Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date', () => {
  test('a whole number of seconds, and each of the three forms of an HTTP-date', () => {
    for (const value of [
      '0',
      '120',
      'Sun, 06 Nov 1994 08:49:37 GMT',
      'Sunday, 06-Nov-94 08:49:37 GMT',
      'Sun Nov  6 08:49:37 1994',
    ])
      expect(isRetryAfter(value)).toBe(true);
  });

  test('a fraction, a sign, a unit, an ISO date or a date not in GMT is neither', () => {
    for (const value of [
      '1.5',
      '-1',
      '+3',
      '10s',
      'soon',
      '',
      '2026-12-02T10:00:00Z',
      'Sun, 06 Nov 1994 08:49:37 +0000',
    ])
      expect(isRetryAfter(value)).toBe(false);
  });

  test('every IMF-fixdate a Date prints is one (the form a server is told to send)', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1970-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }), (d) =>
        isRetryAfter(d.toUTCString()),
      ),
    );
  });
});

describe('Location (RFC 9110 §10.2.2): a URI reference', () => {
  const base = 'http://127.0.0.1:4200/api/flows/';
  test('absolute, relative to the request, or a path', () => {
    for (const value of ['http://example.com/api/flows/1', '/api/flows/1', '1', '../flows/1?x=1#y'])
      expect(isUriReference(value, base)).toBe(true);
  });
  test('a broken authority, a space, markup characters or nothing at all are not', () => {
    for (const value of ['http://[flows', '/api/flows/ 1', '/api/<flows>', ''])
      expect(isUriReference(value, base)).toBe(false);
  });
});

describe('the headers a document declares for a status', () => {
  const op = {
    key: 'POST /flows/',
    method: 'POST',
    path: '/flows/',
    responses: {
      '201': {
        content: {},
        headers: { 'x-rate-remaining': { required: true, schema: { type: 'integer', minimum: 0 } } },
      },
    },
  } as unknown as Operation;
  const validate = (schema: object, value: unknown) => {
    const s = schema as { type?: string; minimum?: number };
    const ok = s.type !== 'integer' || (Number.isInteger(value) && (value as number) >= (s.minimum ?? -Infinity));
    return ok ? undefined : { path: '', keyword: 'type', text: 'must be a non-negative integer' };
  };
  const judged = (headers: Record<string, string>) => {
    const sent: Sent = {
      kind: 'recipe',
      exchange: exchange({ method: 'POST', path: '/flows/' }, { status: 201, json: {}, headers }),
    };
    const f = judgeHeaders(op, sent, { validate });
    return f && `${f.kind} ${f.key}`;
  };

  test('a required one present and in its schema passes; missing, it is incomplete; outside its schema, untrue', () => {
    expect(judged({ 'x-rate-remaining': '7' })).toBeUndefined();
    expect(judged({})).toBe('header.incomplete x-rate-remaining');
    expect(judged({ 'x-rate-remaining': 'many' })).toBe('header.untrue x-rate-remaining');
  });

  test('the Retry-After of an attempt the client sent again is held to the grammar too', () => {
    const ex = exchange(
      { method: 'POST', path: '/flows/' },
      { status: 201, json: {}, headers: { 'x-rate-remaining': '1' } },
    );
    const f = judgeHeaders(op, { kind: 'recipe', exchange: { ...ex, earlierRetryAfter: ['later'] } }, { validate });
    expect(f && `${f.kind} ${f.key}`).toBe('header.untrue Retry-After');
  });
});
