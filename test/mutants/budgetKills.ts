/**
 * The kill rate of a time-boxed run, measured (`npm run bench:kills [-- --budget S] [--only id,id]`): the kill
 * matrix's mutants, each behind the fault-injecting proxy in front of one managed Prefect, against a run of
 * every operation with --budget (not scoped to the mutant's operations as the matrix is). A mutant is killed
 * when every check the matrix names for it fails. The unmutated proxy is run first: under the budget too it
 * must give no failure. Writes reports/bench-kills.json; a benchmark, it states numbers and fails nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { record } from '../../src/bench/history.js';
import { startPrefect } from '../../src/managed/prefect.js';
import { CLOUD_KEY, startCloudProxy } from '../support/cloudProxy.js';
import { startProxy } from '../support/proxy.js';
import { failedChecks, prefectTargetEnv, repoRoot, runCli, sqliteLabel } from '../support/runCli.js';
import { contractMutants, gateMutants, queryMutants, verbMutants } from './registry.js';

const argument = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const budget = argument('--budget') ?? '30';
const only = argument('--only')?.split(',');
const mutants = [...contractMutants, ...verbMutants, ...queryMutants, ...gateMutants].filter(
  (m) => !only || only.includes(m.mutant.id),
);

const server = await startPrefect({ database: 'sqlite' });
const proxies = { plain: await startProxy(server.baseUrl), cloud: await startCloudProxy(server.baseUrl) };
const rows: Array<{ mutant: string; killed: boolean; exitCode: number; failed: string[]; seconds: number }> = [];
try {
  const run = async (target: 'plain' | 'cloud', label = sqliteLabel) => {
    const started = performance.now();
    const r = await runCli(
      [],
      {
        ...prefectTargetEnv(proxies[target].baseUrl),
        CONFORMANCE_TARGET_LABEL: label,
        CONFORMANCE_BUDGET: budget,
        ...(target === 'cloud' ? { CONFORMANCE_API_KEY: CLOUD_KEY } : {}),
      },
      600_000,
    );
    return { r, seconds: Number(((performance.now() - started) / 1000).toFixed(1)) };
  };
  const unmutated = await run('plain');
  const falseRed = failedChecks(unmutated.r.results);
  process.stdout.write(`unmutated: exit ${unmutated.r.code}, ${falseRed.length} failure(s) ${falseRed.join(', ')}\n`);
  for (const { mutant, killedBy, target = 'plain', label } of mutants) {
    proxies[target].setMutant(mutant);
    const { r, seconds } = await run(target, label);
    proxies[target].setMutant(undefined);
    const failed = failedChecks(r.results);
    const killed = killedBy.every((k) => failed.includes(k));
    rows.push({ mutant: mutant.id, killed, exitCode: r.code, failed: failed.slice(0, 10), seconds });
    process.stdout.write(`${killed ? 'killed' : 'ALIVE '} ${mutant.id} (exit ${r.code}, ${seconds} s)\n`);
  }
  const killed = rows.filter((r) => r.killed).length;
  const out = path.join(repoRoot, 'reports');
  mkdirSync(out, { recursive: true });
  writeFileSync(
    path.join(out, 'bench-kills.json'),
    JSON.stringify(
      {
        date: new Date().toISOString(),
        budgetSeconds: Number(budget),
        unmutated: { exitCode: unmutated.r.code, failed: falseRed, seconds: unmutated.seconds },
        killed,
        mutants: rows.length,
        killRate: Number((killed / Math.max(1, rows.length)).toFixed(3)),
        rows,
      },
      null,
      2,
    ),
  );
  record(repoRoot, {
    kind: `kills, budget ${budget}`,
    figures: { killed, mutants: rows.length, exitCode: unmutated.r.code, wallSeconds: unmutated.seconds },
  });
  process.stdout.write(
    `killed ${killed} of ${rows.length} (${Math.round((100 * killed) / Math.max(1, rows.length))} %)\n`,
  );
} finally {
  await Promise.all(Object.values(proxies).map((p) => p.close()));
  await server.stop();
}
