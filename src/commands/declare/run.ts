/** `run` (the default command): the suite against a target, and the reports. */
import type { Command } from 'commander';
import { addRunOptions, type CommandResult, givenFlags, RUN_EXAMPLES } from './runFlags.js';

export function declareRun(root: Command, result: CommandResult): void {
  addRunOptions(
    root
      .command('run', { isDefault: true })
      .description('run the suite against a target (the default command) and write the reports')
      .addHelpText('after', RUN_EXAMPLES),
  ).action(async (_opts, command: Command) => {
    const { runCommand } = await import('../run.js');
    result.code = await runCommand(givenFlags(command));
  });
}
