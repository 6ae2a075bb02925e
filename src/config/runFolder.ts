/**
 * The run folder (`<out>/.run`): the files the suites and the supervising CLI hand each other, and how one
 * side waits for a file the other writes.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Whether a file of the run folder appeared, written by the other side of the run: looked for every `pollMs`
 * until it is there, or until `over` says that it will not come.
 */
export async function appeared(file: string, over: () => boolean, pollMs: number): Promise<boolean> {
  while (!existsSync(file)) {
    if (over()) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return true;
}

/** The run folder's files, written by the suites and read by the supervising CLI. */
export function runFiles(runDir: string) {
  return {
    ledger: path.join(runDir, 'ledger.jsonl'),
    exchanges: path.join(runDir, 'exchanges.jsonl'),
    /** Every exchange of the run as a HAR entry, one per line, where --report har asks (http/recorders.ts). */
    harEntries: path.join(runDir, 'exchanges.har.jsonl'),
    document: path.join(runDir, 'openapi.json'),
    requests: path.join(runDir, 'requests.txt'),
    /** What holds the run back (config/pacingStatus.ts), written by the suites' client for progress. */
    pacingStatus: path.join(runDir, 'pacing-status.json'),
    /** The exchanges the suites expect to send (register.ts), for progress's estimate of what is left. */
    expectedExchanges: path.join(runDir, 'expected-exchanges'),
    /**
     * Written by the results reporter, after results.json, when every suite file has ended: nothing more
     * is sent, and the CLI starts cleanup while the reporters after it still write (allure's ~4,000 files
     * take seconds).
     */
    suitesEnded: path.join(runDir, 'suites-ended'),
    /** The entries of the releases around the target's, as one baseline, where those apply (baseline/choice.ts). */
    neighboursBaseline: path.join(runDir, 'baseline-neighbours.json'),
    /** What the CLI's preflight decided (the target, its document, the baseline), until the suites have read it. */
    workerConfig: path.join(runDir, 'worker-config.json'),
  };
}
