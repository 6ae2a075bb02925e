/** Why a target could not be reached, in plain words. */
import { describe, expect, test } from 'vitest';
import { unreachableReason } from '../../../src/openapi/unreachable.js';

const fetchFailed = (cause: { code?: string; message?: string }) =>
  Object.assign(new TypeError('fetch failed'), { cause });

describe('unreachableReason', () => {
  test('what fetch says, as the user can act on it', () => {
    const url = 'http://127.0.0.1:4200/api';
    expect(unreachableReason(fetchFailed({ message: 'bad port' }), 'http://127.0.0.1:9/api')).toBe(
      'port 9 is one fetch refuses to connect to (a "bad port" of the Fetch standard): serve the API on another',
    );
    expect(unreachableReason(fetchFailed({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' }), url)).toBe(
      'nothing accepts connections at 127.0.0.1:4200 (connection refused): is the server started, on that port?',
    );
    expect(unreachableReason(fetchFailed({ code: 'ENOTFOUND', message: 'getaddrinfo' }), 'https://x.invalid/api')).toBe(
      'the host x.invalid is not known (ENOTFOUND)',
    );
    expect(unreachableReason(fetchFailed({ code: 'ECONNREFUSED' }), 'https://prefect.example/api')).toContain(
      'prefect.example:443',
    );
    expect(unreachableReason(Object.assign(new Error('t'), { name: 'TimeoutError' }), url)).toBe(
      'no answer in time (TimeoutError)',
    );
    expect(unreachableReason(fetchFailed({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: 'x' }), url)).toBe(
      'its TLS certificate was refused (DEPTH_ZERO_SELF_SIGNED_CERT)',
    );
    expect(unreachableReason(fetchFailed({ code: 'EPIPE', message: 'write EPIPE' }), url)).toBe('EPIPE: write EPIPE');
  });
});
