/**
 * What the managed server needs of this machine, read from the environment where a command starts one: the
 * cache of its venvs, the Python and the installer that make them, the package index.
 */
import os from 'node:os';
import path from 'node:path';
import type { Env } from './config.js';
import { UsageError } from './errors.js';

/** What installs a managed release: uv (the default), or pip (`CONFORMANCE_INSTALLER=pip`). */
export type Installer = 'uv' | 'pip';

/**
 * Where the managed server's venvs are cached, the Python that makes them, what installs them, and the
 * package index (pip's own PIP_INDEX_URL, else PyPI's), which also says when a release was published.
 */
export function managedServerSettings(): {
  cacheDir: string;
  python: string;
  packageIndex: string;
  installer: Installer;
} {
  const env = process.env;
  const installer = env.CONFORMANCE_INSTALLER || 'uv';
  if (installer !== 'uv' && installer !== 'pip')
    throw new UsageError(`CONFORMANCE_INSTALLER must be uv or pip, got "${installer}"`);
  return {
    installer,
    cacheDir:
      env.CONFORMANCE_CACHE_DIR ||
      path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'orchestration-conformance'),
    python: env.PYTHON || 'python3',
    packageIndex: env.PIP_INDEX_URL || 'https://pypi.org/simple',
  };
}

/** The environment of a child process that needs nothing of ours (the managed server), with additions. */
export function inheritedEnvironment(extra: Env = {}): Env {
  return { ...process.env, ...extra };
}
