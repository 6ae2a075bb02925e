/**
 * The migrated empty database a managed SQLite server starts from: made once per venv by the release's own
 * `prefect server database upgrade`, copied into each home. A stand-in for the venv's `prefect` writes what the
 * real one would (the real one is started by every managed server of the integration tests).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { seedDatabase } from '../../../src/managed/sqliteTemplate.js';

/**
 * A venv whose `prefect` writes `files` into PREFECT_HOME, then ends with the shell line `end` (an exit status,
 * or a signal to itself), counting its calls.
 */
function venvWith(files: string[], end = 'exit 0'): { venv: string; bin: string; calls: () => number } {
  const venv = mkdtempSync(path.join(os.tmpdir(), 'template-venv-'));
  mkdirSync(path.join(venv, 'bin'));
  const bin = path.join(venv, 'bin', 'prefect');
  const writes = files.map((f) => `printf 'db:%s' "$*" > "$PREFECT_HOME/${f}"`).join('\n');
  writeFileSync(bin, `#!/bin/sh\necho x >> "${venv}/calls"\n${writes}\n${end}\n`);
  chmodSync(bin, 0o755);
  const calls = () =>
    existsSync(path.join(venv, 'calls')) ? readFileSync(path.join(venv, 'calls'), 'utf8').length / 2 : 0;
  return { venv, bin, calls };
}

const home = () => mkdtempSync(path.join(os.tmpdir(), 'template-home-'));
const quiet = () => {};

describe('seedDatabase', () => {
  test('migrates once per venv, with the upgrade command, and gives every home a copy', () => {
    const { bin, calls } = venvWith(['prefect.db']);
    const [a, b] = [home(), home()];
    seedDatabase(bin, a, {}, quiet);
    seedDatabase(bin, b, {}, quiet);
    expect(calls()).toBe(1);
    for (const h of [a, b])
      expect(readFileSync(path.join(h, 'prefect.db'), 'utf8')).toBe('db:server database upgrade -y');
  });

  test('an upgrade that fails, or leaves a journal beside the database, keeps nothing and is not tried again', () => {
    for (const { files, end } of [
      { files: ['prefect.db'], end: 'exit 1' },
      { files: ['prefect.db', 'prefect.db-wal'], end: 'exit 0' },
    ]) {
      const { bin, calls } = venvWith(files, end);
      const [a, b] = [home(), home()];
      seedDatabase(bin, a, {}, quiet);
      seedDatabase(bin, b, {}, quiet);
      expect(calls()).toBe(1);
      expect(existsSync(path.join(a, 'prefect.db'))).toBe(false);
      expect(existsSync(path.join(b, 'prefect.db'))).toBe(false);
    }
  });

  test('an upgrade stopped by a signal (a Ctrl-C reaches it too) keeps nothing, and is tried again', () => {
    const { bin, calls } = venvWith([], 'kill -INT $$');
    const [a, b] = [home(), home()];
    seedDatabase(bin, a, {}, quiet);
    seedDatabase(bin, b, {}, quiet);
    expect(calls()).toBe(2);
    expect(existsSync(path.join(a, 'prefect.db'))).toBe(false);
  });

  test('a template it cannot write leaves the server to migrate its own, and says so', () => {
    const { venv, bin } = venvWith(['prefect.db']);
    // Where the copy would go, a folder (as a file it may not write: the tests run as root, whom modes do not stop).
    mkdirSync(path.join(venv, `conformance-empty.db.${process.pid}.partial`));
    const h = home();
    const said: string[] = [];
    seedDatabase(bin, h, {}, (line) => said.push(line));
    expect(existsSync(path.join(h, 'prefect.db'))).toBe(false);
    expect(said.at(-1)).toMatch(/it migrates its own/);
  });

  test('a database the settings name elsewhere is left to the server', () => {
    const { bin, calls } = venvWith(['prefect.db']);
    const h = home();
    seedDatabase(bin, h, { PREFECT_SERVER_DATABASE_CONNECTION_URL: 'sqlite+aiosqlite:////elsewhere.db' }, quiet);
    expect(calls()).toBe(0);
    expect(existsSync(path.join(h, 'prefect.db'))).toBe(false);
  });
});
