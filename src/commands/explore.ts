/**
 * `explore --minutes N`: seed after seed past the run's own, until the minutes are spent, each a run of the
 * generated part only (the `contract` checks that judge the exercise: valid bodies drawn from the seed, each
 * field's edges, invalid bodies, unknown ids). A failure no baseline entry excuses and no earlier seed met is
 * new, kept with its seed and the lines that show it again (the generated body already shrunk by the run). It
 * writes explore.md (the findings, new apart from known), explore.json and explore-baseline.json (a draft of the
 * entries the new findings would need); exit 1 when something new was found, 0 when nothing was.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { configFrom, outFolderGiven, UsageError, type Env } from '../config/config.js';
import { inheritedEnvironment } from '../config/worker.js';
import { allChecks } from '../checks/registry.js';
import {
  baselineDraft,
  EXPLORE_NAMES,
  exploreMarkdown,
  findingKey,
  type Finding,
  knownFailures,
  newFindings,
  type SeedRun,
} from '../report/explore.js';
import { publishedList, shownPath } from '../report/publish.js';
import { log } from './log.js';
import { repoRoot } from './repository.js';
import { readResults } from './results.js';

/** Where exploring writes unless `--out` names a folder: one of its own, never a run's. */
export const EXPLORE_FOLDER = 'exploration';

/** The checks whose verdicts a seed changes: those that judge the operation's exercise (contract/eachExchange.ts). */
const seededChecks = (): string[] =>
  allChecks()
    .filter((c) => c.family === 'contract' && c.reads === 'exercise')
    .map((c) => c.id);

/** One seed's run, in a process of its own (the CLI, quiet, its output in the seed's folder): its exit code. */
function runSeed(flags: Env, seed: number, dir: string): Promise<number> {
  mkdirSync(dir, { recursive: true });
  const env = inheritedEnvironment({
    ...flags,
    CONFORMANCE_SEED: String(seed),
    CONFORMANCE_CHECKS: seededChecks().join(','),
    CONFORMANCE_OUT: dir,
    CONFORMANCE_QUIET: '1',
  });
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(repoRoot, 'bin', 'conformance'), [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => output.push(b));
    child.stderr.on('data', (b: Buffer) => output.push(b));
    child.on('error', reject);
    child.on('exit', (code) => {
      writeFileSync(path.join(dir, 'run.log'), Buffer.concat(output));
      resolve(code ?? 1);
    });
  });
}

/**
 * What a seed's run leaves besides its results and its log of exchanges (.run/: what a comparison or a count of
 * its server errors reads): allure's thousands of files and the other reports are not what explore keeps.
 */
const trimmed = (dir: string) => {
  for (const name of ['allure-results', 'index.html', 'junit.xml'])
    rmSync(path.join(dir, name), { recursive: true, force: true });
};

export async function exploreCommand(flags: Env, minutesGiven: string): Promise<number> {
  const minutes = Number(minutesGiven);
  if (!/^\d+(\.\d+)?$/.test(minutesGiven) || minutes <= 0)
    throw new UsageError(`explore: --minutes takes a number of minutes above 0, got "${minutesGiven}"`);
  const config = configFrom(flags);
  const outDir = outFolderGiven(config) ? config.outDir : path.resolve(EXPLORE_FOLDER);
  for (const name of EXPLORE_NAMES) rmSync(path.join(outDir, name), { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  // Past the run's own seed, unless one is named: the default run has already judged its own.
  const firstSeed = flags.CONFORMANCE_SEED ? config.seed : config.seed + 1;
  const deadline = Date.now() + minutes * 60_000;
  const seen = new Set<string>();
  const findings: Finding[] = [];
  const seeds: SeedRun[] = [];
  // What the first seed's results name it; the URL (or the managed server) until then.
  let target = config.baseUrl ?? 'the managed Prefect';
  for (let seed = firstSeed; ; seed++) {
    const longest = Math.max(0, ...seeds.map((s) => s.seconds * 1000));
    // The next seed starts only where the longest so far would end in time.
    if (seeds.length > 0 && Date.now() + longest > deadline) break;
    const dir = path.join(outDir, 'seeds', String(seed));
    const started = Date.now();
    const exitCode = await runSeed(flags, seed, dir);
    const results = readResults(path.join(dir, 'results.json'));
    if (!results) {
      // A run that ended before judging (bad input, an unreachable target) ends the session: its line says why.
      log(
        `explore: seed ${seed} ended without results (exit ${exitCode}); its output is in ${shownPath(path.join(dir, 'run.log'))}`,
      );
      if (seeds.length === 0) return exitCode === 2 ? 2 : 1;
      break;
    }
    trimmed(dir);
    target = results.target.label ?? target;
    const found = newFindings(results, seen);
    findings.push(...found);
    seeds.push({
      seed,
      seconds: Math.round((Date.now() - started) / 1000),
      requests: results.summary.requests,
      exitCode,
      known: knownFailures(results),
      found: found.map(findingKey),
    });
    log(
      `explore: ${seeds.length} seed(s) run, ${Math.max(0, Math.round((deadline - Date.now()) / 60_000))} min left; seed ${seed}: ${found.length ? `new: ${found.map(findingKey).join('; ')}` : 'nothing new'} (${findings.length} new in all)`,
    );
  }
  const session = { target, minutes, seeds, findings };
  writeFileSync(path.join(outDir, 'explore.json'), JSON.stringify(session, null, 2));
  writeFileSync(path.join(outDir, 'explore.md'), exploreMarkdown(session));
  writeFileSync(path.join(outDir, 'explore-baseline.json'), JSON.stringify(baselineDraft(findings), null, 2));
  log(`exploration in ${shownPath(outDir)}: ${publishedList([...EXPLORE_NAMES], outDir)}`);
  process.stdout.write(
    findings.length
      ? `NEW (exit 1): ${findings.length} failure(s) no baseline entry names, over ${seeds.length} seed(s): see explore.md\n`
      : `NOTHING NEW (exit 0): ${seeds.length} seed(s), every failure met is a known deviation\n`,
  );
  return findings.length ? 1 : 0;
}
