/**
 * `exchanges.har`: every exchange of a run as HAR 1.2 (the format browsers' network panels and HAR viewers read),
 * from the entries the run's clients recorded, one per line (http/recorders.ts `harRecorder`), secrets redacted.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Results } from './results.js';

/** The HAR document of a run: its entries in the order they were answered. */
export function harDocument(
  results: Pick<Results, 'tool' | 'target' | 'seed' | 'runTag'>,
  entriesFile: string,
): string {
  const entries = existsSync(entriesFile)
    ? readFileSync(entriesFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { startedDateTime: string })
    : [];
  entries.sort((a, b) => a.startedDateTime.localeCompare(b.startedDateTime));
  return JSON.stringify(
    {
      log: {
        version: '1.2',
        creator: { name: results.tool.name, version: results.tool.version },
        comment: `run ${results.runTag} against ${results.target.baseUrl}, seed ${results.seed}`,
        entries,
      },
    },
    null,
    1,
  );
}
