/** `merge`: the shards of a run, as one run's reports. */
import type { Command } from 'commander';
import { type CommandResult, givenFlags } from './runFlags.js';

export function declareMerge(root: Command, result: CommandResult): void {
  root
    .command('merge')
    .argument('[dirs...]', 'folders of blob reports (default: <out>/blob)')
    .option('--out <dir>', 'where the merged reports go', 'reports')
    .description('merge the blob reports of a sharded run (--shard i/n) into one set of reports')
    .action(async (dirs: string[], _opts, command: Command) => {
      const { mergeCommand } = await import('../merge.js');
      result.code = await mergeCommand(dirs, givenFlags(command));
    });
}
