/** The target a bench measures: a managed Prefect it starts (services off or on), or a server already running. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { runCredentials, startPrefect } from '../managed/prefect.js';
import { installedRelease } from '../managed/releasePins.js';
import { listenerPid } from '../managed/processes.js';

export interface BenchTarget {
  baseUrl: string;
  /** What was benched, as bench.json names it. */
  label: string;
  /** The server's process when it runs on this machine: its CPU is the run's floor. */
  serverPid?: number;
  /** What the run is told beside the user's own variables. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** The target to bench: a managed Prefect (services off, or on with --services), or one already running at --url. */
export async function benchTarget(
  repoRoot: string,
  runDir: string,
  options: {
    url?: string;
    services: boolean;
    'prefect-version'?: string;
  },
): Promise<BenchTarget> {
  if (options.url) {
    const url = new URL(options.url);
    return {
      baseUrl: options.url,
      label: `${url.origin} (by URL)`,
      serverPid: listenerPid(url),
      env: {},
      stop: async () => {},
    };
  }
  const { pin, bin } = await installedRelease(options['prefect-version'], (l) => process.stderr.write(`${l}\n`));
  // With credentials, as the default run starts its managed server: the auth family is judged, as there.
  const authString = runCredentials(pin.prefect);
  const server = await startPrefect({
    database: 'sqlite',
    version: pin.prefect,
    bin,
    services: options.services,
    authString,
  });
  const label = `prefect ${pin.prefect} on sqlite`;
  const baseline = path.join(repoRoot, 'fixtures', 'baselines', `prefect-${pin.prefect}.json`);
  return {
    baseUrl: server.baseUrl,
    label: options.services ? `${label} (prefect server start, services on)` : `${label} (managed)`,
    serverPid: server.pid,
    env: {
      // A server of our own, dropped after the run: the run sends what the default run sends.
      CONFORMANCE_DISPOSABLE_TARGET: '1',
      CONFORMANCE_TARGET_LABEL: label,
      ...(authString ? { CONFORMANCE_AUTH_STRING: authString } : {}),
      ...(existsSync(baseline) ? { CONFORMANCE_BASELINE: baseline } : {}),
    },
    // Its log beside the run's reports: the cause of each 5xx the run met.
    stop: () => server.stop({ keepLogAt: path.join(runDir, 'server.log') }),
  };
}
