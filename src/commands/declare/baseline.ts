/** `baseline update|verify|findings`: maintain a baseline of known deviations. */
import type { Command } from 'commander';
import type { CommandResult } from './runFlags.js';

/** An option's value where the user typed it; undefined for a default (each names what it stands for, not a value). */
const typed = (command: Command, name: string): string | undefined =>
  command.getOptionValueSource(name) === 'cli' ? (command.getOptionValue(name) as string) : undefined;

export function declareBaseline(root: Command, result: CommandResult): void {
  const baseline = root.command('baseline').description('maintain a baseline of known deviations');
  baseline
    .command('update')
    .description("write a baseline from a run's results: keyed entries for its failures, others kept")
    .option('--from <file>', "the run's results.json", '<out>/results.json')
    .option('--baseline <file>', 'the baseline to start from (CONFORMANCE_BASELINE)')
    .option('--out <file>', 'where to write the new baseline', 'baseline.json beside --from')
    .action(async (_opts, command: Command) => {
      const { baselineUpdate } = await import('../baseline.js');
      result.code = baselineUpdate(typed(command, 'from'), typed(command, 'baseline'), typed(command, 'out'));
    });
  baseline
    .command('verify')
    .description('whether each entry still shows on the target, from a run against it (exit 1 when one is stale)')
    .option('--from <file>', "the run's results.json", '<out>/results.json')
    .option('--baseline <file>', 'the baseline to verify', 'the one the run applied')
    .action(async (_opts, command: Command) => {
      const { baselineVerify } = await import('../baseline.js');
      result.code = baselineVerify(typed(command, 'from'), typed(command, 'baseline'));
    });
  baseline
    .command('findings')
    .description("write the real deviations the shipped baselines name, for the server's maintainers")
    .option('--out <file>', 'where to write them', 'docs/findings.md')
    .action(async (_opts, command: Command) => {
      const { baselineFindings } = await import('../baseline.js');
      result.code = await baselineFindings(typed(command, 'out'));
    });
}
