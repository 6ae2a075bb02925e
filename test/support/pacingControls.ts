/**
 * The two controls of 429s the run does not cause, against a Prefect already running, interleaved with direct
 * runs on the same server:
 * - a gateway that answers 5 % of all requests 429 (`Retry-After: 1`) whatever the pace: the run's wall time
 *   against the direct run's (goal: within 2×);
 * - a gateway of 2,000 a minute whose budget a second client spends 1,000 a minute of at the same time: the
 *   run's wall time against the floor the remaining budget sets for the limited requests it had served (goal:
 *   within 1.2×).
 * And, with --limit-only, the gateway of 2,000 a minute alone against its floor. Each run is compared with the
 * direct run before it (`conformance compare`: the same verdicts); --refusing-only runs the first control alone.
 * Prints one line a run and one JSON line at the end.
 *
 * `npx tsx test/support/pacingControls.ts --upstream http://127.0.0.1:4200/api [--rounds 3] [--out DIR]
 * [--limit-only | --refusing-only]`
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startSpender } from './budgetSpender.js';
import { startGateway } from './gateway.js';
import { runCli, WHOLE_RUN_MS } from './runCli.js';

const { values } = parseArgs({
  options: {
    upstream: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    out: { type: 'string' },
    'limit-only': { type: 'boolean' },
    'refusing-only': { type: 'boolean' },
  },
});
if (!values.upstream) {
  process.stderr.write('pacingControls: --upstream URL is required\n');
  process.exit(2);
}
const upstream = values.upstream;
const out = values.out ?? mkdtempSync(path.join(os.tmpdir(), 'pacing-controls-'));
/** The limit's burst: a second of its budget, at once. */
const BURST = 33;

/** A run by URL with nothing else configured (a key behind the gateway), timed; the gateway runs in this process. */
async function run(
  name: string,
  baseUrl: string,
  key?: string,
): Promise<{ seconds: number; code: number; dir: string }> {
  const dir = path.join(out, name);
  const started = performance.now();
  const r = await runCli(
    [],
    { CONFORMANCE_BASE_URL: baseUrl, CONFORMANCE_OUT: dir, CI: 'true', ...(key ? { CONFORMANCE_API_KEY: key } : {}) },
    WHOLE_RUN_MS,
  );
  return { seconds: (performance.now() - started) / 1000, code: r.code, dir };
}

/** `compare`'s line on the verdicts: "N checks on both sides; no change", or what changed. */
async function verdictsAgainst(a: string, b: string): Promise<string> {
  const dir = path.join(b, 'compare');
  await runCli(['compare', a, b], { CONFORMANCE_OUT: dir });
  const md = readFileSync(path.join(dir, 'compare.md'), 'utf8');
  return /## 2\. Verdicts per check\s+(.+)/.exec(md)?.[1].trim() ?? 'no comparison';
}

const rows: unknown[] = [];
for (let round = 1; round <= Number(values.rounds); round++) {
  const direct = await run(`direct-${round}`, upstream);
  process.stdout.write(`round ${round}: direct ${direct.seconds.toFixed(1)} s (exit ${direct.code})\n`);
  if (!values['limit-only']) {
    const refusing = await startGateway(upstream, { refuseShare: 0.05 });
    const five = await run(`five-${round}`, refusing.baseUrl, refusing.key);
    const refused = refusing.counts().rateLimited;
    await refusing.close();
    const row = {
      control: '5 % answered 429 whatever the pace',
      seconds: five.seconds,
      direct: direct.seconds,
      ratio: five.seconds / direct.seconds,
      exit: five.code,
      refused,
      verdicts: await verdictsAgainst(direct.dir, five.dir),
    };
    rows.push(row);
    process.stdout.write(
      `round ${round}: 5 % refused: ${five.seconds.toFixed(1)} s, ${row.ratio.toFixed(2)}× direct, ${refused} answers 429, exit ${five.code}; ${row.verdicts}\n`,
    );
  }
  if (values['refusing-only']) continue;
  const limited = await startGateway(upstream, { limitPerMinute: 2000 });
  const spender = values['limit-only'] ? undefined : startSpender(limited.baseUrl, limited.key, 1000);
  const shared = await run(`${spender ? 'shared' : 'limited'}-${round}`, limited.baseUrl, limited.key);
  const spent = spender?.counts();
  await spender?.stop();
  const counts = limited.counts();
  await limited.close();
  // The run's own limited requests served: all served, less the second client's.
  const served = counts.limited - counts.rateLimited - (spent ? spent.sent - spent.refused : 0);
  const perMinute = spender ? 1000 : 2000;
  const floor = (served - BURST) / (perMinute / 60);
  const row = {
    control: spender ? '2,000 a minute, 1,000 of it spent by another client' : '2,000 a minute',
    seconds: shared.seconds,
    floor,
    ratio: shared.seconds / floor,
    exit: shared.code,
    served,
    refused: counts.rateLimited,
    other: spent,
    verdicts: await verdictsAgainst(direct.dir, shared.dir),
  };
  rows.push(row);
  process.stdout.write(
    `round ${round}: ${row.control}: ${shared.seconds.toFixed(1)} s for ${served} limited requests served, floor ${floor.toFixed(1)} s, ${row.ratio.toFixed(2)}×, ${counts.rateLimited} answers 429${spent ? ` (the other client: ${spent.sent} sent, ${spent.refused} refused)` : ''}, exit ${shared.code}; ${row.verdicts}\n`,
  );
}
process.stdout.write(`${JSON.stringify({ out, rows })}\n`);
