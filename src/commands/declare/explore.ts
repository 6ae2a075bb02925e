/** `explore`: seed after seed past the default, for a time, and the failures nobody has met yet. */
import type { Command } from 'commander';
import { addRunOptions, type CommandResult, givenFlags } from './runFlags.js';

export function declareExplore(root: Command, result: CommandResult): void {
  addRunOptions(
    root
      .command('explore')
      .option('--minutes <n>', 'how long to explore, in minutes', '10')
      .option(
        '--seeds <n>',
        'stop after this many seeds, if the minutes last that long (a CI job that wants a count, whatever the machine)',
      )
      .description(
        "run the generated part of the suite (the contract checks of each operation's exercise) seed after seed past the run's own until the minutes are spent; write explore.md (failures no baseline entry and no earlier seed had, each with its seed and replay), explore.json and a baseline draft (to exploration/ unless --out); exit 1 when something new was found",
      ),
    false,
  ).action(async (opts: { minutes: string; seeds?: string }, command: Command) => {
    const { exploreCommand } = await import('../explore.js');
    result.code = await exploreCommand(givenFlags(command), opts.minutes, opts.seeds);
  });
}
