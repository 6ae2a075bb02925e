/** `replay`: the failing cases of an earlier run, rerun exactly. */
import type { Command } from 'commander';
import { addRunOptions, type CommandResult, givenFlags } from './runFlags.js';

export function declareReplay(root: Command, result: CommandResult): void {
  addRunOptions(
    root
      .command('replay')
      .argument('[results]', "an earlier run's results.json or its folder (default: <out>/results.json)")
      .option('--check <id>', 'only the failures of this check (its id, with or without the variant)')
      .option('--operation <key>', 'only the failures on this operation ("METHOD /path")')
      .option('--known', 'the known deviations (xfail) too')
      .description(
        "rerun exactly the failing cases of an earlier run (same checks, same operations, the recorded seed and baseline) against the target, say whether each still fails, and exit with the rerun's verdict",
      ),
    false,
  ).action(
    async (
      results: string | undefined,
      opts: { check?: string; operation?: string; known?: boolean },
      command: Command,
    ) => {
      const { replayCommand } = await import('../replay.js');
      result.code = await replayCommand(results, opts, givenFlags(command));
    },
  );
}
