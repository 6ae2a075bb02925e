/** The target of a Prefect user who set nothing for us: the active profile, found as Prefect's client finds it. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { configFrom, UsageError } from '../../../src/config/config.js';
import { RUN_OPTIONS } from '../../../src/config/options.js';
import { activeProfileTarget, profilesPath } from '../../../src/config/prefectProfile.js';

const PROFILES = `
active = "local"

[profiles.ephemeral]
PREFECT_SERVER_EPHEMERAL_ENABLED = "true"

[profiles.local]
PREFECT_API_URL = "http://127.0.0.1:4200/api"

[profiles.cloud]
PREFECT_API_URL = "https://api.example.test/api/accounts/a/workspaces/w"
PREFECT_API_KEY = "pnu_profilekey"
`;

function home(text = PROFILES): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'prefect-home-'));
  writeFileSync(path.join(dir, 'profiles.toml'), text);
  return dir;
}

afterEach(() => vi.unstubAllEnvs());

describe('the active Prefect profile', () => {
  test('the file is PREFECT_PROFILES_PATH, else under PREFECT_HOME, else ~/.prefect', () => {
    expect(profilesPath({ PREFECT_PROFILES_PATH: '/x/p.toml', PREFECT_HOME: '/h' })).toBe('/x/p.toml');
    expect(profilesPath({ PREFECT_HOME: '/h' })).toBe('/h/profiles.toml');
    expect(profilesPath({})).toBe(path.join(os.homedir(), '.prefect', 'profiles.toml'));
  });

  test("the file's active profile, or PREFECT_PROFILE; its connection settings only", () => {
    const dir = home();
    expect(activeProfileTarget({ PREFECT_HOME: dir })).toEqual({
      source: `Prefect profile "local" (${path.join(dir, 'profiles.toml')})`,
      env: { PREFECT_API_URL: 'http://127.0.0.1:4200/api' },
    });
    expect(activeProfileTarget({ PREFECT_HOME: dir, PREFECT_PROFILE: 'cloud' })?.env).toEqual({
      PREFECT_API_URL: 'https://api.example.test/api/accounts/a/workspaces/w',
      PREFECT_API_KEY: 'pnu_profilekey',
    });
  });

  test('no target from a profile without an API URL, an unknown profile, or no file', () => {
    const dir = home();
    expect(activeProfileTarget({ PREFECT_HOME: dir, PREFECT_PROFILE: 'ephemeral' })).toBeUndefined();
    expect(activeProfileTarget({ PREFECT_HOME: dir, PREFECT_PROFILE: 'nope' })).toBeUndefined();
    expect(activeProfileTarget({ PREFECT_HOME: path.join(dir, 'absent') })).toBeUndefined();
  });

  test('a profiles file that is not TOML is one line of usage error', () => {
    expect(() => activeProfileTarget({ PREFECT_HOME: home('active = [') })).toThrow(UsageError);
  });

  test('the run takes it only when nothing else names a target, and says where the target came from', () => {
    for (const o of RUN_OPTIONS) vi.stubEnv(o.env, undefined);
    for (const name of ['PREFECT_API_URL', 'PREFECT_API_KEY', 'PREFECT_API_AUTH_STRING', 'PREFECT_PROFILES_PATH'])
      vi.stubEnv(name, undefined);
    const dir = home();
    vi.stubEnv('PREFECT_HOME', dir);
    vi.stubEnv('PREFECT_PROFILE', 'cloud');
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'conformance-cwd-'));
    const fromProfile = configFrom({}, {}, cwd);
    expect(fromProfile.baseUrl).toBe('https://api.example.test/api/accounts/a/workspaces/w');
    expect(fromProfile.apiKey).toBe('pnu_profilekey');
    expect(fromProfile.targetSource).toMatch(/^Prefect profile "cloud"/);
    vi.stubEnv('PREFECT_API_URL', 'http://other:1/api');
    const fromVariable = configFrom({}, {}, cwd);
    expect(fromVariable.baseUrl).toBe('http://other:1/api');
    expect(fromVariable.apiKey).toBeUndefined(); // the profile's key is not sent to another server
    expect(fromVariable.targetSource).toBe('PREFECT_API_URL');
    vi.stubEnv('PREFECT_API_URL', undefined);
    // A managed release asked for is the target: the profile's server is not.
    const managed = configFrom({ CONFORMANCE_PREFECT_VERSION: '3.4.25' }, {}, cwd);
    expect(managed.baseUrl).toBeUndefined();
    expect(managed.prefectVersion).toBe('3.4.25');
    expect(managed.apiKey).toBeUndefined();
  });

  test("a target from Prefect's settings is run read-only, and says why, unless --allow-writes; one named for the suite is not", () => {
    for (const o of RUN_OPTIONS) vi.stubEnv(o.env, undefined);
    for (const name of ['PREFECT_API_URL', 'PREFECT_API_KEY', 'PREFECT_API_AUTH_STRING', 'PREFECT_PROFILES_PATH'])
      vi.stubEnv(name, undefined);
    vi.stubEnv('PREFECT_HOME', home());
    vi.stubEnv('PREFECT_PROFILE', 'local');
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'conformance-cwd-'));
    const fromProfile = configFrom({}, {}, cwd);
    expect(fromProfile.readOnly).toBe(true);
    expect(fromProfile.readOnlyBecause).toMatch(/^the target came from Prefect profile "local" .*--allow-writes/);
    expect(configFrom({ CONFORMANCE_ALLOW_WRITES: '1' }, {}, cwd)).toMatchObject({ readOnly: false });
    vi.stubEnv('PREFECT_API_URL', 'http://other:1/api');
    expect(configFrom({}, {}, cwd).readOnlyBecause).toMatch(/^the target came from PREFECT_API_URL/);
    // Asked for: read-only for the user's reason, not the suite's.
    expect(configFrom({ CONFORMANCE_READ_ONLY: '1' }, {}, cwd)).toMatchObject({
      readOnly: true,
      readOnlyBecause: undefined,
    });
    // Named for the suite, by flag or file: writes, as before.
    expect(configFrom({ CONFORMANCE_BASE_URL: 'http://other:1/api' }, {}, cwd)).toMatchObject({ readOnly: false });
    writeFileSync(path.join(cwd, 'conformance.config.json'), JSON.stringify({ baseUrl: 'http://mine:2/api' }));
    const fromFile = configFrom({}, {}, cwd);
    expect(fromFile).toMatchObject({ baseUrl: 'http://mine:2/api', readOnly: false, readOnlyBecause: undefined });
    expect(fromFile.targetSource).toBe(`baseUrl in ${path.join(cwd, 'conformance.config.json')}`);
    // The managed server is the suite's own.
    vi.stubEnv('PREFECT_API_URL', undefined);
    expect(
      configFrom({ CONFORMANCE_PREFECT_VERSION: '3.4.25' }, {}, mkdtempSync(path.join(os.tmpdir(), 'c-'))),
    ).toMatchObject({ readOnly: false });
  });
});
