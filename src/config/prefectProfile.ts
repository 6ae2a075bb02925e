/**
 * The target of a Prefect user who configured nothing for us: the active profile of their Prefect settings,
 * found as Prefect's own client finds it. The profiles file is PREFECT_PROFILES_PATH, else
 * $PREFECT_HOME/profiles.toml, else ~/.prefect/profiles.toml; the active profile is PREFECT_PROFILE, else
 * the file's `active`. Only the connection settings are read (PREFECT_API_URL, PREFECT_API_KEY,
 * PREFECT_API_AUTH_STRING); a profile without an API URL (Prefect's default, "ephemeral") gives no target.
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'smol-toml';
import type { Env } from './env.js';
import { UsageError } from './errors.js';

export interface ProfileTarget {
  /** Where the target came from, for the run's log and results.json: `Prefect profile "local" (/path)`. */
  source: string;
  env: Env;
}

const CONNECTION_SETTINGS = ['PREFECT_API_URL', 'PREFECT_API_KEY', 'PREFECT_API_AUTH_STRING'];

export function profilesPath(env: Env): string {
  if (env.PREFECT_PROFILES_PATH) return env.PREFECT_PROFILES_PATH;
  const home = env.PREFECT_HOME || path.join(os.homedir(), '.prefect');
  return path.join(home.replace(/^~(?=$|\/)/, os.homedir()), 'profiles.toml');
}

/** The connection settings of the active Prefect profile, when it names an API URL. */
export function activeProfileTarget(env: Env): ProfileTarget | undefined {
  const file = profilesPath(env);
  if (!existsSync(file)) return undefined;
  let data: Record<string, unknown>;
  try {
    data = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new UsageError(`Prefect profiles file ${file} is not valid TOML: ${(e as Error).message.split('\n')[0]}`);
  }
  const name = env.PREFECT_PROFILE || (typeof data.active === 'string' ? data.active : undefined);
  const profiles = (data.profiles ?? {}) as Record<string, Record<string, unknown>>;
  const profile = name ? profiles[name] : undefined;
  if (!profile || typeof profile.PREFECT_API_URL !== 'string' || !profile.PREFECT_API_URL) return undefined;
  const out: Env = {};
  for (const key of CONNECTION_SETTINGS) if (typeof profile[key] === 'string') out[key] = profile[key] as string;
  return { source: `Prefect profile "${name}" (${file})`, env: out };
}
