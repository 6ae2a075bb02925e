/** `baseline update | verify | findings`: a baseline of known deviations, kept true. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { configFrom, UsageError } from '../config/config.js';
import { loadBaseline, loadBaselineForUpdate, mergedBaseline } from '../baseline/entries.js';
import { shippedBaselines } from '../baseline/choice.js';
import { updatedBaseline } from '../report/baselineUpdate.js';
import { staleEntries, verificationMarkdown, verifyBaseline } from '../report/baselineVerify.js';
import { findingsMarkdown } from '../report/findings.js';
import { repoRoot, SHIPPED_BASELINES, baselineOf } from './repository.js';
import { readResults } from './results.js';

/** `baseline update [--from results.json] [--baseline old.json] [--out new.json]` */
export function baselineUpdate(fromFile?: string, baselineFile?: string, outFile?: string): number {
  const config = configFrom({});
  const from = fromFile ?? path.join(config.outDir, 'results.json');
  const results = readResults(from);
  if (!results) throw new UsageError(`cannot read a results.json at ${from}`);
  // The baseline the run itself would have chosen, unless one is named.
  const chosen = baselineFile
    ? undefined
    : baselineOf(config, results.target.profile, {
        given: results.target.identity?.release?.version ?? results.target.serverVersion,
        operations: results.operations.map((op) => `${op.method} ${op.path}`),
      });
  // A release judged by its neighbours starts from their entries together; what it showed of them stays, as
  // an entry of its own (the neighbours' names are the run's, not the file's).
  const previous = chosen?.neighbours
    ? { entries: mergedBaseline(chosen.neighbours).entries.map(({ writtenFor: _n, ...e }) => e) }
    : loadBaselineForUpdate(baselineFile ?? chosen?.path);
  const previousFile = baselineFile ?? chosen?.path ?? chosen?.neighbours?.map((n) => n.file).join(' + ');
  const updated = updatedBaseline(previous, results);
  const out = outFile ?? path.join(path.dirname(from), 'baseline.json');
  writeFileSync(out, `${JSON.stringify(updated, null, 2)}\n`);
  process.stdout.write(
    `${updated.entries.length} entries written to ${out}${previousFile ? ` (from ${previousFile})` : ''}; review the diff before using it\n`,
  );
  return 0;
}

/**
 * `baseline verify [--from results.json] [--baseline file]`: whether each entry still says what the target
 * does, read from a run against it; baseline-verify.md and .json beside the results. Exit 1 when an entry is
 * stale (not reproduced, unless intermittent, or shown with another key).
 */
export function baselineVerify(fromFile?: string, baselineFile?: string): number {
  const config = configFrom({});
  const from = fromFile ?? path.join(config.outDir, 'results.json');
  const results = readResults(from);
  if (!results) throw new UsageError(`cannot read a results.json at ${from}`);
  const file = baselineFile ?? (results.baseline?.file && path.resolve(repoRoot, results.baseline.file));
  if (!file)
    throw new UsageError(
      results.baseline?.files
        ? `baseline verify: the run applied its neighbours' baselines together (${results.baseline.files.join(', ')}); name the one to verify with --baseline`
        : 'baseline verify: the run applied no baseline; name one with --baseline',
    );
  const verified = verifyBaseline(loadBaseline(file), results);
  const shown = path.relative(process.cwd(), file);
  writeFileSync(path.join(path.dirname(from), 'baseline-verify.json'), `${JSON.stringify(verified, null, 2)}\n`);
  writeFileSync(path.join(path.dirname(from), 'baseline-verify.md'), verificationMarkdown(verified, shown));
  const stale = staleEntries(verified);
  const count = (o: string) => verified.filter((v) => v.outcome === o).length;
  process.stdout.write(
    `${shown}: ${verified.length} entries, ${count('reproduced')} reproduced, ${count('different')} different, ${count('not reproduced')} not reproduced, ${count('not judged')} not judged by this run\n`,
  );
  for (const v of stale) process.stdout.write(`  stale: ${v.entry} (${v.outcome})\n`);
  return stale.length ? 1 : 0;
}

/** `baseline findings [--out docs/findings.md]`: the real deviations of the shipped baselines, for the server's maintainers. */
export async function baselineFindings(outFile = path.join(repoRoot, 'docs', 'findings.md')): Promise<number> {
  const { BUILT_IN_CHECKS } = await import('../checks/core/registry.js');
  const releases = shippedBaselines(SHIPPED_BASELINES, 'prefect').map((b) => ({
    release: b.release,
    baseline: loadBaseline(b.file),
  }));
  writeFileSync(outFile, findingsMarkdown(releases, BUILT_IN_CHECKS));
  process.stdout.write(`${outFile}: the deviations of ${releases.length} releases' baselines\n`);
  return 0;
}
