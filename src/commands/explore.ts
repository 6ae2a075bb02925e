/**
 * `explore --minutes N`: seed after seed past the run's own, until the minutes are spent, each a run of the
 * generated part only (the `contract` checks that judge the exercise: valid bodies drawn from the seed, each
 * field's edges, invalid bodies, unknown ids). A failure no baseline entry excuses and no earlier seed met is
 * new, kept with its seed and the lines that show it again (the generated body already shrunk by the run). It
 * writes explore.md (the findings, new apart from known), explore.json and explore-baseline.json (a draft of the
 * entries the new findings would need). Each new finding is replayed as it is found; exit 1 when something new
 * was found and its replay did not pass, 0 otherwise (a failure met once is reported, not gated).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { configFrom, outFolderGiven, UsageError, type Env } from '../config/config.js';
import { inheritedEnvironment } from '../config/managedSettings.js';
import { BUILT_IN_CHECKS } from '../checks/core/registry.js';
import {
  baselineDraft,
  EXPLORE_NAMES,
  exploreMarkdown,
  findingKey,
  type Finding,
  knownFailures,
  newFindings,
  type SeedRun,
  stillShown,
} from '../report/explore.js';
import { publishedList, shownPath } from '../report/publish.js';
import { logTo } from './log.js';
import { repoRoot } from './repository.js';
import type { ReplayedCase } from './replay.js';
import { readResults } from './results.js';

/** Where exploring writes unless `--out` names a folder: one of its own, never a run's. */
export const EXPLORE_FOLDER = 'exploration';

/** The checks whose verdicts a seed changes: those that judge the operation's exercise (contract/eachExchange.ts). */
const seededChecks = (): string[] =>
  BUILT_IN_CHECKS.filter((c) => c.family === 'contract' && c.reads === 'exercise').map((c) => c.id);

/** The CLI in a process of its own, quiet, its output written to `logFile`: its exit code. */
function runCli(args: string[], env: Env, logFile: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(repoRoot, 'bin', 'conformance'), args, {
      env: inheritedEnvironment({ ...env, CONFORMANCE_QUIET: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => output.push(b));
    child.stderr.on('data', (b: Buffer) => output.push(b));
    child.on('error', reject);
    child.on('exit', (code) => {
      writeFileSync(logFile, Buffer.concat(output));
      resolve(code ?? 1);
    });
  });
}

/** One seed's run, its output in the seed's folder: its exit code. */
function runSeed(flags: Env, seed: number, dir: string): Promise<number> {
  mkdirSync(dir, { recursive: true });
  const env = {
    ...flags,
    CONFORMANCE_SEED: String(seed),
    CONFORMANCE_CHECKS: seededChecks().join(','),
    CONFORMANCE_OUT: dir,
  };
  return runCli([], env, path.join(dir, 'run.log'));
}

/**
 * What a seed's run leaves besides its results and its log of exchanges (.run/: what a comparison or a count of
 * its server errors reads): allure's thousands of files and the other reports are not what explore keeps.
 */
const trimmed = (dir: string) => {
  for (const name of ['allure-results', 'index.html', 'junit.xml'])
    rmSync(path.join(dir, name), { recursive: true, force: true });
};

/** What replay.json says of each case it reran; nothing where the replay wrote none. */
function replayOutcomes(file: string): Array<ReplayedCase['outcome']> {
  if (!existsSync(file)) return [];
  return (JSON.parse(readFileSync(file, 'utf8')) as { replayed: ReplayedCase[] }).replayed.map((r) => r.outcome);
}

/**
 * A new finding's replay, run as soon as it is found (its check on its operation, with the seed's cases): what
 * it made of it. A failure the replay does not show again was met once, by a race, a lock or the seed's load.
 */
async function replayed(flags: Env, dir: string, f: Finding, n: number): Promise<Finding['replayed']> {
  const out = path.join(dir, `replay-${n}`);
  mkdirSync(out, { recursive: true });
  const args = ['replay', path.join(dir, 'results.json'), '--check', f.check, '--operation', f.operation];
  // replay writes where its --out says; and its seed is the one results.json records, which a --seed of the
  // session's would win over.
  const env = Object.fromEntries(Object.entries(flags).filter(([k]) => k !== 'CONFORMANCE_SEED'));
  await runCli([...args, '--out', out], env, path.join(out, 'run.log')).catch(() => 1);
  trimmed(out);
  const outcomes = replayOutcomes(path.join(out, 'replay.json'));
  if (outcomes.includes('still fails')) return 'shown again';
  if (outcomes.includes('fails differently')) return 'fails differently';
  return outcomes.includes('passes now') ? 'not shown again' : 'not judged';
}

export async function exploreCommand(flags: Env, minutesGiven: string, seedsGiven?: string): Promise<number> {
  const minutes = Number(minutesGiven);
  if (!/^\d+(\.\d+)?$/.test(minutesGiven) || minutes <= 0)
    throw new UsageError(`explore: --minutes takes a number of minutes above 0, got "${minutesGiven}"`);
  if (seedsGiven !== undefined && !/^[1-9]\d*$/.test(seedsGiven))
    throw new UsageError(`explore: --seeds takes a whole number above 0, got "${seedsGiven}"`);
  const seedCount = seedsGiven === undefined ? Number.POSITIVE_INFINITY : Number(seedsGiven);
  const config = configFrom(flags);
  const log = logTo(config);
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
    if (seeds.length >= seedCount) break;
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
    for (const [n, f] of found.entries()) f.replayed = await replayed(flags, dir, f, n + 1);
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
  const shown = findings.filter(stillShown).length;
  const once = findings.length - shown;
  const metOnce = `${once} met once, not shown again by its replay`;
  process.stdout.write(
    shown
      ? `NEW (exit 1): ${shown} failure(s) no baseline entry names, over ${seeds.length} seed(s)${once ? `, and ${metOnce}` : ''}: see explore.md\n`
      : once
        ? `NOTHING NEW SHOWN AGAIN (exit 0): ${seeds.length} seed(s), every failure met a known deviation but ${metOnce}: see explore.md\n`
        : `NOTHING NEW (exit 0): ${seeds.length} seed(s), every failure met is a known deviation\n`,
  );
  return shown ? 1 : 0;
}
