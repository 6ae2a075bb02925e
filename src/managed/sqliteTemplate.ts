/**
 * A migrated, empty SQLite database for each installed release, which a managed server on SQLite starts from.
 * A server started on no database migrates one first: about half of its start's CPU (12–13 s where it takes
 * 5–7 s from a migrated one, on this kind). The release's own `prefect server database upgrade` makes it once, in a
 * home of its own, and it is kept in the release's venv; each server's home gets a copy.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The file a release's server keeps its SQLite database in, under its PREFECT_HOME (Prefect's default). */
const DATABASE = 'prefect.db';

/**
 * Puts a migrated empty database in a new server's home, made first where the release has none. Where it cannot
 * be made, the server migrates its own as before (the reason is kept beside the venv, so it is not tried again).
 */
export function seedDatabase(bin: string, home: string, env: NodeJS.ProcessEnv, log: (line: string) => void): void {
  // A database the user's settings name elsewhere is theirs to migrate.
  if (Object.keys(env).some((k) => k.endsWith('_DATABASE_CONNECTION_URL'))) return;
  const venv = path.dirname(path.dirname(bin));
  const template = path.join(venv, 'conformance-empty.db');
  const refused = `${template}.refused`;
  try {
    if (!existsSync(template) && !existsSync(refused)) makeTemplate(bin, template, refused, env, log);
    if (existsSync(template)) copyFileSync(template, path.join(home, DATABASE));
  } catch (e) {
    // A venv the user cannot write to, a full disk: the server migrates its own, as without a template.
    log(`no migrated database for this server (${(e as Error).message}): it migrates its own`);
  }
}

function makeTemplate(
  bin: string,
  template: string,
  refused: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): void {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'conformance-template-'));
  try {
    log(`migrating an empty database for this release, once: ${template}`);
    const upgrade = spawnSync(bin, ['server', 'database', 'upgrade', '-y'], {
      env: { ...env, PREFECT_HOME: scratch },
      encoding: 'utf8',
      timeout: 300_000,
    });
    // Stopped (the user's Ctrl-C reaches it too, or its time ran out): no verdict on the release, tried again.
    if (upgrade.signal || upgrade.error) {
      log(
        `the migration of an empty database was stopped (${upgrade.signal ?? upgrade.error?.message}): this server migrates its own`,
      );
      return;
    }
    // Only the database file, whole: a journal beside it would mean the upgrade did not close it.
    const made = readdirSync(scratch);
    if (upgrade.status !== 0 || !made.includes(DATABASE) || made.some((f) => f.startsWith(`${DATABASE}-`))) {
      const why = `\`prefect server database upgrade\` exited ${upgrade.status} leaving ${made.join(', ') || 'nothing'}`;
      writeFileSync(refused, `${why}\n${(upgrade.stderr ?? '').slice(-2000)}`);
      log(`no migrated database kept for this release (${why}): each server migrates its own`);
      return;
    }
    // Two servers starting at once may each make one: each renames a whole file into place.
    const partial = `${template}.${process.pid}.partial`;
    copyFileSync(path.join(scratch, DATABASE), partial);
    renameSync(partial, template);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
