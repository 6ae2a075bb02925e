/** `baseline update|verify|findings`: maintain a baseline of known deviations. */
import type { Command } from 'commander';
import type { CommandResult } from './runFlags.js';

export function declareBaseline(root: Command, result: CommandResult): void {
  const baseline = root.command('baseline').description('maintain a baseline of known deviations');
  baseline
    .command('update')
    .description("write a baseline from a run's results: keyed entries for its failures, others kept")
    .option('--from <file>', "the run's results.json", '<out>/results.json')
    .option('--baseline <file>', 'the baseline to start from (CONFORMANCE_BASELINE)')
    .option('--out <file>', 'where to write the new baseline', 'baseline.json beside --from')
    .action(async (opts: { from?: string; baseline?: string; out?: string }, command: Command) => {
      const given = (name: string) =>
        command.getOptionValueSource(name) === 'cli' ? (opts as Record<string, string>)[name] : undefined;
      const { baselineUpdate } = await import('../baseline.js');
      result.code = baselineUpdate(given('from'), given('baseline'), given('out'));
    });
  baseline
    .command('verify')
    .description('whether each entry still shows on the target, from a run against it (exit 1 when one is stale)')
    .option('--from <file>', "the run's results.json", '<out>/results.json')
    .option('--baseline <file>', 'the baseline to verify', 'the one the run applied')
    .action(async (opts: { from?: string; baseline?: string }, command: Command) => {
      const given = (name: string) =>
        command.getOptionValueSource(name) === 'cli' ? (opts as Record<string, string>)[name] : undefined;
      const { baselineVerify } = await import('../baseline.js');
      result.code = baselineVerify(given('from'), given('baseline'));
    });
  baseline
    .command('findings')
    .description("write the real deviations the shipped baselines name, for the server's maintainers")
    .option('--out <file>', 'where to write them', 'docs/findings.md')
    .action(async (opts: { out?: string }, command: Command) => {
      const { baselineFindings } = await import('../baseline.js');
      result.code = await baselineFindings(command.getOptionValueSource('out') === 'cli' ? opts.out : undefined);
    });
}
