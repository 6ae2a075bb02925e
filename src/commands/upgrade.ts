/**
 * `conformance upgrade --from A --to B`: what a self-hosting team gates an upgrade on. A corpus is written through
 * release A's API on a database of the run's own; A stops, and B's own `prefect server database upgrade`
 * migrates that database; B starts on it, every object is read back by id and by filter and compared with what A
 * served; then B's suite runs on the migrated database. One report holds both: per collection what was written,
 * read back, lost and changed, and B's verdicts. A loss or a changed field that no baseline entry of B names
 * fails the run.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configFrom, UsageError, type Env } from '../config/config.js';
import { CannotRunError, GateFailure } from '../config/errors.js';
import { inheritedEnvironment } from '../config/managedSettings.js';
import { migrateDatabase, type Migration } from '../managed/migration.js';
import {
  createPostgresDatabase,
  dropPostgresDatabase,
  postgresUrl,
  startPrefect,
  type ManagedServer,
} from '../managed/prefect.js';
import { installedRelease } from '../managed/releasePins.js';
import type { UpgradeReport } from '../report/results.js';
import { UpgradeApi } from '../upgrade/api.js';
import { writeCorpus, type Corpus } from '../upgrade/corpus.js';
import { excuseUpgrade } from '../upgrade/excused.js';
import { movingFields, snapshot, survival, type Snapshot } from '../upgrade/readBack.js';
import { type Log, logTo } from './log.js';
import { runCommand } from './run.js';

export interface UpgradeOptions {
  from: string;
  to: string;
  /** A shell command run between the migration and B's start, the database's URL in CONFORMANCE_DATABASE_URL. */
  afterMigration?: string;
}

/** A database of the run's own for both releases: a SQLite file in a folder of its own, or a PostgreSQL database. */
function ownDatabase(database: string): { url: string; drop(): void } {
  if (database === 'postgres') {
    const name = `conformance_upgrade_${process.pid}_${Date.now().toString(36)}`;
    createPostgresDatabase(name);
    return { url: postgresUrl(name), drop: () => dropPostgresDatabase(name) };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'conformance-upgrade-'));
  return {
    url: `sqlite+aiosqlite:///${path.join(dir, 'prefect.db')}`,
    drop: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A's side: the corpus written, and read twice some seconds apart (what moves by itself is then known). */
async function writtenOnA(server: ManagedServer, tag: string): Promise<{ corpus: Corpus; reads: Snapshot[] }> {
  const api = await UpgradeApi.at(server.baseUrl);
  const corpus = await writeCorpus(api, tag);
  const first = await snapshot(api, corpus.objects);
  await new Promise((r) => setTimeout(r, 2000));
  return { corpus, reads: [first, await snapshot(api, corpus.objects)] };
}

function runAfterMigration(command: string, url: string, log: Log): void {
  log(`upgrade: after the migration: ${command}`);
  const run = spawnSync(command, {
    shell: true,
    env: inheritedEnvironment({ CONFORMANCE_DATABASE_URL: url }),
    encoding: 'utf8',
  });
  if (run.status !== 0)
    throw new UsageError(`upgrade: --after-migration exited ${run.status}: ${(run.stderr ?? '').trim().slice(-300)}`);
}

/** B's migration of the database; one that fails is the upgrade's failure, in one line. */
function migrated(bin: string, version: string, url: string): Migration {
  try {
    return migrateDatabase(bin, url);
  } catch (e) {
    throw new GateFailure(`upgrade: prefect ${version}'s migration failed: ${(e as Error).message}`);
  }
}

export async function upgradeCommand(options: UpgradeOptions, flags: Env): Promise<number> {
  const config = configFrom(flags);
  const log = logTo(config);
  if (config.baseUrl) throw new UsageError('upgrade: both releases are managed servers of its own; give no --base-url');
  const { database } = config;
  const [a, b] = [await installedRelease(options.from, log), await installedRelease(options.to, log)];
  const db = ownDatabase(database);
  const servers: ManagedServer[] = [];
  try {
    log(`upgrade: writing the corpus through prefect ${a.pin.prefect} on ${database}`);
    const onA = await startPrefect({ version: a.pin.prefect, bin: a.bin, database, databaseUrl: db.url, log });
    servers.push(onA);
    const tag = config.runTag.toLowerCase().replace(/[^a-z0-9-]/g, '-');
    const { corpus, reads } = await writtenOnA(onA, tag).catch((e: Error) => {
      throw new CannotRunError(
        `upgrade: the corpus could not be written through prefect ${a.pin.prefect}: ${e.message}`,
      );
    });
    await onA.stop();
    log(`upgrade: ${corpus.objects.length} objects written; migrating with prefect ${b.pin.prefect}`);
    const migration = migrated(b.bin, b.pin.prefect, db.url);
    if (options.afterMigration) runAfterMigration(options.afterMigration, db.url, log);
    const onB = await startPrefect({ version: b.pin.prefect, bin: b.bin, database, databaseUrl: db.url, log }).catch(
      (e: Error) => {
        throw new GateFailure(`upgrade: prefect ${b.pin.prefect} did not start on the migrated database: ${e.message}`);
      },
    );
    servers.push(onB);
    const api = await UpgradeApi.at(onB.baseUrl);
    const after = await snapshot(api, corpus.objects);
    const collections = survival(corpus.objects, reads[1], after, movingFields(reads[0], reads[1]), (template, at) =>
      api.documentHas(template, at),
    );
    const report: UpgradeReport = {
      from: a.pin.prefect,
      to: b.pin.prefect,
      database,
      migration,
      collections,
      absent: corpus.absent,
    };
    log(`upgrade: read back on prefect ${b.pin.prefect}; its suite runs on the migrated database`);
    const label = `prefect ${b.pin.prefect} on ${database}`;
    // One report: B's verdicts and the survival, with B's baseline applied to both.
    return await runCommand(
      flags,
      {
        CONFORMANCE_BASE_URL: onB.baseUrl,
        CONFORMANCE_DISPOSABLE_TARGET: '1',
        CONFORMANCE_PREFECT_VERSION: '',
        CONFORMANCE_TARGET_LABEL: label,
      },
      {
        completed: (results, baseline) => {
          results.upgrade = excuseUpgrade(report, baseline, label);
        },
      },
    );
  } finally {
    for (const server of servers) await server.stop();
    db.drop();
  }
}
