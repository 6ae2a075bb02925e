/**
 * A Prefect release the version table does not list, made to start by trying: as published; with the pins of
 * the listed releases nearest it (a release breaks on today's index the way its neighbours do: a FastAPI that
 * dropped what it uses, a pydantic that cannot build its schemas); with the dependencies of its own time (what
 * the package index held when it was published: uv's --exclude-newer). A try counts when the server starts and
 * serves its document. A module the start names as missing (ModuleNotFoundError) is added and the try made
 * again. What made it start is kept with its venv, so the next run starts at once, and said as the table's
 * entry for it; a release no try starts is bad input, with what each try met.
 */
import { UsageError } from '../config/config.js';
import { managedServerSettings } from '../config/managedSettings.js';
import { compareReleases } from './releaseOrder.js';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  ensurePrefect,
  installedPin,
  readPin,
  startPrefect,
  type PrefectPin,
  type VersionTable,
  venvDir,
  versionTable,
} from './prefect.js';

/** One way to install a release, and how the log names it. */
export interface PinTry {
  how: string;
  pin: PrefectPin;
}

/** A release's installed venv, and the pins that made it start. */
export interface InstalledRelease {
  bin: string;
  pin: PrefectPin;
  /** How the pins were found, for a release the table does not list; undefined for a listed one. */
  found?: string;
}

/**
 * The tries for an unlisted release, in order: as published, then the pins of the listed releases around it
 * (the nearer first, each once), then its own time's dependencies where the index says when it was published.
 */
export function pinTries(version: string, table: VersionTable, publishedAt?: string): PinTry[] {
  const listed = Object.keys(table.versions).sort(compareReleases);
  const before = listed.filter((v) => compareReleases(v, version) < 0).at(-1);
  const after = listed.find((v) => compareReleases(v, version) > 0);
  const tries: PinTry[] = [{ how: 'as published', pin: { prefect: version, constraints: [], add: [] } }];
  const seen = new Set(['[]|[]']);
  for (const near of [before, after].filter((v): v is string => v !== undefined)) {
    const { constraints, add } = table.versions[near];
    const key = `${JSON.stringify(constraints)}|${JSON.stringify(add)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    tries.push({ how: `with the pins of ${near}`, pin: { prefect: version, constraints, add } });
  }
  if (publishedAt)
    tries.push({
      how: `with the dependencies of its own time (the package index as of ${publishedAt})`,
      pin: { prefect: version, constraints: [], add: [], excludeNewer: publishedAt },
    });
  return tries;
}

/** The top-level module a start names as missing (`ModuleNotFoundError: No module named 'x'`), if it names one. */
export function missingModule(message: string): string | undefined {
  return /ModuleNotFoundError: No module named '([A-Za-z0-9_]+)'/.exec(message)?.[1];
}

/** What the package index says of a release: whether it has it, its newest final release, and its own time. */
export interface IndexEntry {
  listed: boolean;
  newest?: string;
  /** A day after the index's earliest file of it (PEP 700 upload times); absent when the index does not say. */
  publishedAt?: string;
}

/**
 * The package index's entry for a release (PEP 691 JSON): whether it is there, the newest final release, and
 * when it was published, a day on (what the index held then is the release's own time: its dependencies of
 * that day, released beside it, are in). Undefined when the index cannot be read.
 */
export async function indexEntry(
  version: string,
  indexUrl = managedServerSettings().packageIndex,
): Promise<IndexEntry | undefined> {
  try {
    const res = await fetch(`${indexUrl.replace(/\/$/, '')}/prefect/`, {
      headers: { accept: 'application/vnd.pypi.simple.v1+json' },
      signal: AbortSignal.timeout(30_000),
    });
    if (!res.ok) return undefined;
    const body = (await res.json()) as {
      versions?: string[];
      files?: Array<{ filename: string; 'upload-time'?: string }>;
    };
    const own = (body.files ?? []).filter(
      (f) => f.filename.startsWith(`prefect-${version}-`) || f.filename === `prefect-${version}.tar.gz`,
    );
    const finals = (body.versions ?? []).filter((v) => /^\d+\.\d+\.\d+$/.test(v)).sort(compareReleases);
    const times = own.flatMap((f) => (f['upload-time'] ? [Date.parse(f['upload-time'])] : [])).filter(Number.isFinite);
    return {
      listed: body.versions ? body.versions.includes(version) : own.length > 0,
      ...(finals.length ? { newest: finals.at(-1) } : {}),
      ...(times.length
        ? { publishedAt: new Date(Math.min(...times) + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z') }
        : {}),
    };
  } catch {
    return undefined;
  }
}

/** Why a try failed, in a line: the start's last words, or what the document's request answered. */
export type StartProbe = (pin: PrefectPin, bin: string) => Promise<string | undefined>;

/** Start the release once, ask for its document, stop it: undefined when it serves one, else why not. */
export const probeStart: StartProbe = async (pin, bin) => {
  let server: Awaited<ReturnType<typeof startPrefect>> | undefined;
  try {
    server = await startPrefect({ version: pin.prefect, bin, startupDeadlineMs: 90_000 });
    const res = await fetch(`${server.baseUrl}/openapi.json`, { signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    if (!res.ok) return `its document answered ${res.status} (${text.slice(0, 120).replace(/\s+/g, ' ')})`;
    const paths = (JSON.parse(text) as { paths?: object }).paths;
    return paths && Object.keys(paths).length ? undefined : 'its document lists no paths';
  } catch (e) {
    return (e as Error).message.replace(/\s+/g, ' ').slice(-400);
  } finally {
    await server?.stop();
  }
};

/** Beside a venv whose release was started by the tries: its pins are known to work. */
const startsMarker = (pin: PrefectPin) => path.join(venvDir(pin), '.starts');

/** The failure's last words, short enough for one line. */
const brief = (why: string) => (why.length > 200 ? `…${why.slice(-200)}` : why);

/**
 * The release installed and known to start: a listed one with its table's pins; an unlisted one with the pins
 * its cached venv started with, else those the tries find.
 */
export async function installedRelease(
  version: string | undefined,
  log: (line: string) => void = () => {},
  probe: StartProbe = probeStart,
  table: VersionTable = versionTable(),
): Promise<InstalledRelease> {
  const listed = readPin(version, table);
  if (listed.why) return { bin: ensurePrefect(log, listed), pin: listed };
  const cached = installedPin(listed.prefect);
  if (cached && existsSync(startsMarker(cached)))
    return { bin: ensurePrefect(log, cached), pin: cached, found: 'as its cached venv was installed' };
  log(`prefect ${listed.prefect} is not in prefect-versions.json: finding the pins it starts with`);
  const entry = await indexEntry(listed.prefect);
  // No install is tried for a release the index does not have: it says so, with the newest it has.
  if (entry && !entry.listed)
    throw new UsageError(
      `Prefect ${listed.prefect} could not be started: the package index has no prefect ${listed.prefect} (its newest: ${entry.newest ?? 'none'})`,
    );
  const tried: string[] = [];
  for (const t of pinTries(listed.prefect, table, entry?.publishedAt)) {
    let pin = t.pin;
    for (;;) {
      let why: string | undefined;
      let bin: string | undefined;
      try {
        bin = ensurePrefect(log, pin);
        why = await probe(pin, bin);
      } catch (e) {
        why = (e as Error).message.replace(/\s+/g, ' ');
      }
      const missing = why && missingModule(why);
      if (why && missing && !pin.add.includes(missing)) {
        log(`prefect ${pin.prefect} ${t.how}: the start needs ${missing}, which it does not declare; adding it`);
        pin = { ...pin, add: [...pin.add, missing] };
        continue;
      }
      if (!why && bin) {
        writeFileSync(startsMarker(pin), `${t.how}\n`);
        const entry = {
          constraints: pin.constraints,
          add: pin.add,
          ...(pin.excludeNewer ? { excludeNewer: pin.excludeNewer } : {}),
        };
        log(
          `prefect ${pin.prefect} starts ${t.how}${tried.length ? ` (${tried.join('; ')})` : ''}; its entry for prefect-versions.json: ${JSON.stringify(entry)}`,
        );
        return { bin, pin, found: t.how };
      }
      // A venv that does not start is not kept: the next run tries again rather than take it as found.
      rmSync(venvDir(pin), { recursive: true, force: true });
      tried.push(`${t.how}: ${brief(why ?? 'no binary')}`);
      log(`prefect ${pin.prefect} ${t.how} does not start: ${brief(why ?? '')}`);
      break;
    }
  }
  throw new UsageError(`Prefect ${listed.prefect} could not be started: ${tried.join('; ')}`);
}
