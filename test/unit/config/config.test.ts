/** Configuration: environment and flags, with bad input as a UsageError (exit 2, one line). */
import { describe, expect, test } from 'vitest';
import { flagsToEnv, loadConfig, secretsOf, UsageError } from '../../src/config/config.js';
import { Redactor } from '../../src/http/redact.js';

describe('config', () => {
  test('defaults: managed target, fixed seed, reports/', () => {
    const c = loadConfig({});
    expect(c.baseUrl).toBeUndefined();
    expect(c.disposable).toBe(true);
    expect(c.seed).toBe(loadConfig({}).seed);
    expect(c.outDir.endsWith('reports')).toBe(true);
  });

  test('CONFORMANCE_BASE_URL wins over PREFECT_API_URL, and a user target is not disposable', () => {
    const c = loadConfig({ CONFORMANCE_BASE_URL: 'http://a:1/api/', PREFECT_API_URL: 'http://b:2/api' });
    expect(c.baseUrl).toBe('http://a:1/api');
    expect(c.disposable).toBe(false);
    expect(loadConfig({ PREFECT_API_URL: 'http://b:2/api' }).baseUrl).toBe('http://b:2/api');
  });

  test.each([
    [{ CONFORMANCE_BASE_URL: 'not a url' }],
    [{ CONFORMANCE_BASE_URL: 'ftp://x/api' }],
    [{ CONFORMANCE_BASE_URL: 'http://user:secret@x/api' }],
    [{ CONFORMANCE_SEED: '-1' }],
    [{ CONFORMANCE_RUNS: 'many' }],
    [{ CONFORMANCE_DB: 'oracle' }],
    [{ CONFORMANCE_OPERATIONS: '(' }],
    [{ CONFORMANCE_AUTH_STRING: 'nocolon' }],
  ])('%o is a usage error', (env) => {
    expect(() => loadConfig(env)).toThrow(UsageError);
  });

  test('flags map to the same environment names; unknown flags are usage errors', () => {
    expect(flagsToEnv(['--base-url', 'http://x/api', '--read-only', '--seed=5'])).toEqual({
      CONFORMANCE_BASE_URL: 'http://x/api',
      CONFORMANCE_READ_ONLY: '1',
      CONFORMANCE_SEED: '5',
    });
    expect(() => flagsToEnv(['--nope'])).toThrow(UsageError);
    expect(() => flagsToEnv(['--base-url'])).toThrow(UsageError);
  });

  test('secrets are redacted everywhere, the base64 of basic auth too', () => {
    const r = new Redactor(secretsOf({ apiKey: 'pnu_key123', authString: 'admin:hunter22' }));
    const b64 = Buffer.from('admin:hunter22').toString('base64');
    expect(r.text(`key pnu_key123 basic ${b64} pass hunter22`)).toBe('key *** basic *** pass ***');
    expect(r.headers({ Authorization: 'Bearer pnu_key123', 'x-other': 'pnu_key123' })).toEqual({
      Authorization: 'Bearer ***',
      'x-other': '***',
    });
  });
});
