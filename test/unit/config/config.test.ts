/** Configuration: environment and flags, with bad input as a UsageError (exit 2, one line). */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { configFrom, loadConfig, secretsOf, UsageError } from '../../../src/config/config.js';
import { CONFIG_OPTION, OPTION_GROUPS, RUN_OPTIONS, SECRET_VARIABLES } from '../../../src/config/options.js';
import { Redactor } from '../../../src/http/redact.js';

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
    [{ CONFORMANCE_GENERATED: 'many' }],
    [{ CONFORMANCE_DB: 'oracle' }],
    [{ CONFORMANCE_OPERATIONS: '(' }],
    [{ CONFORMANCE_EXCLUDE_OPERATIONS: '[' }],
    [{ CONFORMANCE_AUTH_STRING: 'nocolon' }],
    // a managed release and a URL name two targets
    [{ CONFORMANCE_PREFECT_VERSION: '3.4.25', CONFORMANCE_BASE_URL: 'http://a:1/api' }],
  ])('%o is a usage error', (env) => {
    expect(() => loadConfig(env)).toThrow(UsageError);
  });

  test('the option table: one flag, one variable and one file key per option; secrets have no flag and no key', () => {
    const all = [...RUN_OPTIONS, CONFIG_OPTION];
    for (const field of ['flag', 'env'] as const) expect(new Set(all.map((o) => o[field])).size).toBe(all.length);
    const keys = all.flatMap((o) => (o.key ? [o.key] : []));
    expect(new Set(keys).size).toBe(keys.length);
    for (const o of all)
      expect(o.flag).toBe(
        `--${o.env
          .replace(/^CONFORMANCE_/, '')
          .replace(/_TARGET$/, '')
          .toLowerCase()
          .replace(/_/g, '-')}`,
      );
    for (const secret of SECRET_VARIABLES) expect(all.some((o) => o.env === secret.env)).toBe(false);
  });

  test("docs/usage.md's table names every flag, variable and file key", () => {
    const readme = readFileSync(path.join(import.meta.dirname, '..', '..', '..', 'docs', 'usage.md'), 'utf8');
    for (const o of [...RUN_OPTIONS, CONFIG_OPTION, ...SECRET_VARIABLES]) {
      expect(readme).toContain(`\`${o.env}\``);
      if ('flag' in o) expect(readme).toContain(`\`${o.flag}`);
      if ('key' in o && o.key) expect(readme).toContain(`\`${o.key}\``);
    }
  });

  test('secrets are redacted everywhere, the base64 of basic auth too', () => {
    const r = new Redactor(secretsOf({ apiKey: 'pnu_key123', authString: 'admin:hunter22' }));
    const b64 = Buffer.from('admin:hunter22').toString('base64');
    expect(r.text(`key pnu_key123 basic ${b64} pass hunter22`)).toBe('key *** basic *** pass ***');
    expect(r.headers({ Authorization: 'Bearer pnu_key123', 'x-other': 'pnu_key123' })).toEqual({
      Authorization: 'Bearer ***',
      'x-other': '***',
    });
    expect(r.headers({ authorization: `Basic ${b64}`, cookie: 'session=abc' })).toEqual({
      authorization: 'Basic ***',
      cookie: '***',
    });
    // The suite's own wrong credentials are no secret: kept, so that a curl line repeats the refusal.
    expect(r.headers({ authorization: 'Bearer conformance-wrong-key' })).toEqual({
      authorization: 'Bearer conformance-wrong-key',
    });
  });
});

describe('a bad setting is named as the user gave it', () => {
  afterEach(() => vi.unstubAllEnvs());

  test('the flag typed, the key of the file, or the variable set', () => {
    for (const o of RUN_OPTIONS) vi.stubEnv(o.env, undefined);
    vi.stubEnv('PREFECT_API_URL', undefined);
    vi.stubEnv('PREFECT_HOME', mkdtempSync(path.join(os.tmpdir(), 'prefect-home-')));
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'conformance-cwd-'));
    expect(() => configFrom({ CONFORMANCE_SEED: 'abc' }, {}, cwd)).toThrow(/^--seed must be an integer/);
    expect(() => configFrom({ CONFORMANCE_OPERATIONS: '(' }, {}, cwd)).toThrow(/^--operations is not a valid/);
    writeFileSync(path.join(cwd, 'conformance.config.json'), JSON.stringify({ generated: 0 }));
    expect(() => configFrom({}, {}, cwd)).toThrow(
      `generated in ${path.join(cwd, 'conformance.config.json')} must be an integer from 1 to 10000, got "0"`,
    );
    // The flag wins over the file, and is named.
    expect(() => configFrom({ CONFORMANCE_GENERATED: '-1' }, {}, cwd)).toThrow(/^--generated must be/);
    vi.stubEnv('CONFORMANCE_GENERATED', 'x');
    expect(() => configFrom({}, {}, cwd)).toThrow(/^CONFORMANCE_GENERATED must be/);
  });
});

describe('the groups of help', () => {
  test('every run option, and the configuration file, in exactly one group', () => {
    const grouped = OPTION_GROUPS.flatMap((g) => g.flags);
    expect([...grouped].sort()).toEqual([...RUN_OPTIONS, CONFIG_OPTION].map((o) => o.flag).sort());
  });
});
