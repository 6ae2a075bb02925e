/** The configuration file: its schema (made from the option table), its errors, and its place in the precedence. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { configFrom, UsageError } from '../../../src/config/config.js';
import { CONFIG_FILE_NAME, configFileSchema, readConfigFile, schemaPath } from '../../../src/config/file.js';
import { RUN_OPTIONS, SECRET_VARIABLES } from '../../../src/config/options.js';

function folderWith(config: unknown): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'conformance-config-'));
  writeFileSync(path.join(dir, CONFIG_FILE_NAME), typeof config === 'string' ? config : JSON.stringify(config));
  return dir;
}

/** A process environment with none of the run's variables, whatever the test runner's environment holds. */
function clearRunEnvironment(): void {
  for (const o of [...RUN_OPTIONS, ...SECRET_VARIABLES]) vi.stubEnv(o.env, undefined);
  for (const name of ['PREFECT_API_URL', 'PREFECT_API_KEY', 'PREFECT_API_AUTH_STRING', 'CONFORMANCE_CONFIG'])
    vi.stubEnv(name, undefined);
  // No Prefect profile of the machine's user may give a target here.
  vi.stubEnv('PREFECT_PROFILES_PATH', path.join(os.tmpdir(), 'conformance-no-such-profiles.toml'));
}

afterEach(() => vi.unstubAllEnvs());

describe('configuration file', () => {
  test('the schema that ships with the suite is the one the option table makes', () => {
    expect(JSON.parse(readFileSync(schemaPath, 'utf8'))).toEqual(configFileSchema());
  });

  test('every option with a key is in the schema; secrets are not', () => {
    const properties = Object.keys(configFileSchema().properties as object);
    for (const o of RUN_OPTIONS) if (o.key) expect(properties).toContain(o.key);
    expect(properties).not.toContain('apiKey');
    expect(properties).not.toContain('authString');
  });

  test('values become their variables; paths are relative to the file; lists and booleans are spelled out', () => {
    const dir = folderWith({
      $schema: './schemas/conformance.config.schema.json',
      baseUrl: 'http://server:4200/api',
      document: 'docs/openapi.json',
      out: 'out',
      seed: 7,
      readOnly: true,
      excludeChecks: ['filters.*', 'sorting.order'],
      methods: 'GET,POST',
    });
    expect(readConfigFile(path.join(dir, CONFIG_FILE_NAME))).toEqual({
      CONFORMANCE_BASE_URL: 'http://server:4200/api',
      CONFORMANCE_DOCUMENT: path.join(dir, 'docs', 'openapi.json'),
      CONFORMANCE_OUT: path.join(dir, 'out'),
      CONFORMANCE_SEED: '7',
      CONFORMANCE_READ_ONLY: '1',
      CONFORMANCE_EXCLUDE_CHECKS: 'filters.*,sorting.order',
      CONFORMANCE_METHODS: 'GET,POST',
    });
  });

  test("the baseline's words auto and none are not paths", () => {
    for (const word of ['auto', 'none'])
      expect(readConfigFile(path.join(folderWith({ baseline: word }), CONFIG_FILE_NAME))).toEqual({
        CONFORMANCE_BASELINE: word,
      });
  });

  test.each([
    ['not JSON', '{ "seed": ', /is not valid JSON/],
    ['an unknown setting', { sed: 5 }, /\/ unknown setting "sed"/],
    ['a wrong type', { generated: 'ten' }, /\/generated must be integer/],
    [
      'a secret',
      { apiKey: 'pnu_x' },
      /unknown setting "apiKey": secrets are read from the environment only \(CONFORMANCE_API_KEY, CONFORMANCE_AUTH_STRING\), never from a file/,
    ],
    ['a bad seed', { seed: 'often' }, /\/seed is not n\|random/],
  ])('%s is one line of usage error', (_what, content, pattern) => {
    const file = path.join(folderWith(content), CONFIG_FILE_NAME);
    expect(() => readConfigFile(file)).toThrow(UsageError);
    expect(() => readConfigFile(file)).toThrow(pattern);
    try {
      readConfigFile(file);
    } catch (e) {
      expect((e as Error).message).not.toContain('\n');
    }
  });

  test('precedence: flags over environment over file over defaults', () => {
    clearRunEnvironment();
    const cwd = folderWith({ seed: 1, generated: 3, concurrency: 2, timeoutMs: 5000 });
    const fromFile = configFrom({}, {}, cwd);
    expect([fromFile.seed, fromFile.runs, fromFile.concurrency, fromFile.requestTimeoutMs]).toEqual([1, 3, 2, 5000]);
    expect(fromFile.configFile).toBe(path.join(cwd, CONFIG_FILE_NAME));
    vi.stubEnv('CONFORMANCE_SEED', '2');
    vi.stubEnv('CONFORMANCE_GENERATED', '4');
    const fromEnv = configFrom({ CONFORMANCE_SEED: '3' }, {}, cwd);
    expect([fromEnv.seed, fromEnv.runs, fromEnv.concurrency]).toEqual([3, 4, 2]);
    // Defaults where nobody said anything.
    expect(fromEnv.readOnly).toBe(false);
  });

  test('--config names a file anywhere; a named file that is missing is a usage error', () => {
    clearRunEnvironment();
    const dir = folderWith({ seed: 11 });
    expect(configFrom({ CONFORMANCE_CONFIG: path.join(dir, CONFIG_FILE_NAME) }, {}, os.tmpdir()).seed).toBe(11);
    expect(() => configFrom({ CONFORMANCE_CONFIG: path.join(dir, 'nope.json') })).toThrow(/not found/);
  });

  test('the target from the file says so', () => {
    clearRunEnvironment();
    const cwd = folderWith({ baseUrl: 'http://server:4200/api' });
    const c = configFrom({}, {}, cwd);
    expect(c.baseUrl).toBe('http://server:4200/api');
    expect(c.targetSource).toBe(`baseUrl in ${path.join(cwd, CONFIG_FILE_NAME)}`);
    expect(configFrom({ CONFORMANCE_BASE_URL: 'http://flag:1/api' }, {}, cwd).targetSource).toBe('the --base-url flag');
  });
});
