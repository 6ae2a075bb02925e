/** `replay`: the failing cases of an earlier run, rerun exactly. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { configFrom, UsageError, type Env } from '../config/config.js';
import { type CheckResult, gates } from '../report/results.js';
import { verdictLine } from '../report/terminal.js';
import { repoRoot } from './repository.js';
import { logTo } from './log.js';
import { resultsFileIn, readResults } from './results.js';
import { runCommand } from './run.js';

/** A case of an earlier run and what a rerun made of it (replay.json holds them, as `replayed`). */
export interface ReplayedCase {
  id: string;
  operation: string;
  before: { status: string; kind?: string; key?: string };
  after?: { status: string; kind?: string; key?: string; message?: string };
  outcome: 'still fails' | 'still fails, known' | 'fails differently' | 'passes now' | 'not judged';
}

function replayOutcome(before: CheckResult, after: CheckResult | undefined): ReplayedCase['outcome'] {
  if (!after || !['passed', 'failed', 'xfail', 'xpass'].includes(after.status)) return 'not judged';
  if (after.status === 'passed' || after.status === 'xpass') return 'passes now';
  const same = (after.failures ?? []).some((f) => f.kind === before.kind && f.key === before.key);
  // Failing as the baseline says it does: the gate does not count it, and the line says so.
  if (same) return after.status === 'xfail' ? 'still fails, known' : 'still fails';
  // The failure is gone and only what the baseline names is left: the case passes as the gate sees it.
  return after.status === 'xfail' ? 'passes now' : 'fails differently';
}

/**
 * `replay [results.json | DIR] [--check ID] [--operation "METHOD /path"] [--known] [run flags]`: the failing
 * cases of an earlier run, rerun exactly (those checks on those operations, with the recorded seed) against
 * the target the flags give, each said to still fail, to fail differently, to pass now, or not to be judged.
 * The rerun applies the recorded run's baseline and gate rule unless the flags name others, and its exit
 * code is the rerun's gate verdict: the per-case lines, summary.md and the exit code say the same thing.
 */
export async function replayCommand(
  source: string | undefined,
  opts: { check?: string; operation?: string; known?: boolean },
  flags: Env,
): Promise<number> {
  const config = configFrom(flags);
  const log = logTo(config);
  const from = resultsFileIn(source ?? config.outDir);
  const previous = readResults(from);
  if (!previous) throw new UsageError(`replay: cannot read a results.json at ${from}`);
  const wanted = previous.checks.filter(
    (c) =>
      (c.status === 'failed' || (opts.known && c.status === 'xfail')) &&
      (!opts.check || c.id === opts.check || c.check === opts.check) &&
      (!opts.operation || c.operation === opts.operation),
  );
  if (wanted.length === 0) {
    const known = opts.known ? 0 : previous.checks.filter((c) => c.status === 'xfail').length;
    throw new UsageError(
      `replay: no ${opts.known ? 'failing or known-failing' : 'failing'} case in ${from}${opts.check ? ` for ${opts.check}` : ''}${opts.operation ? ` on ${opts.operation}` : ''}${known ? `; it has ${known} known deviation(s) (xfail), which --known replays` : ''}`,
    );
  }
  const cases = [...new Set(wanted.map((c) => `${c.check} ${c.operation}`))];
  const out = flags.CONFORMANCE_OUT ?? path.join(path.dirname(path.resolve(from)), 'replay');
  log(`replay: ${wanted.length} case(s) of ${from} with seed ${previous.seed}, reports in ${out}`);
  // What the recorded run judged by, unless the flags say otherwise: its seed, its baseline (a file, or none),
  // its gate rule. A rerun with another baseline would call the same answer by another name.
  const recorded: Env = {
    CONFORMANCE_OUT: out,
    CONFORMANCE_SEED: String(previous.seed),
    CONFORMANCE_BASELINE: previous.baseline?.file ? path.resolve(repoRoot, previous.baseline.file) : 'none',
    ...(previous.gateShould ? { CONFORMANCE_GATE_SHOULD: '1' } : {}),
  };
  const code = await runCommand(
    flags,
    recorded, // the flags win over it (configFrom)
    { narrow: (c) => ({ ...c, selection: { ...c.selection, cases } }), verdictLast: false },
  );
  const rerun = readResults(path.join(out, 'results.json'));
  const replayed: ReplayedCase[] = wanted.map((before) => {
    const after = rerun?.checks.find((c) => c.id === before.id && c.operation === before.operation);
    return {
      id: before.id,
      operation: before.operation,
      before: { status: before.status, kind: before.kind, key: before.key },
      after: after && { status: after.status, kind: after.kind, key: after.key, message: after.message },
      outcome: replayOutcome(before, after),
    };
  });
  writeFileSync(path.join(out, 'replay.json'), `${JSON.stringify({ from, seed: previous.seed, replayed }, null, 2)}\n`);
  const gateShould = rerun?.gateShould ?? false;
  for (const [i, r] of replayed.entries()) {
    const failing = r.outcome === 'still fails' || r.outcome === 'fails differently';
    const level = wanted[i].level;
    const gated = failing && !gates(level, gateShould) ? `; ${level}: reported, not gated` : '';
    process.stdout.write(
      `${r.outcome.toUpperCase()}: ${r.id} ${r.operation}${r.after && r.outcome !== 'passes now' ? ` (${r.after.status}: ${(r.after.message ?? '').split('\n')[0].slice(0, 200)}${gated})` : ''}\n`,
    );
  }
  if (rerun) process.stdout.write(`${verdictLine(rerun)}\n`);
  return code;
}
