/** `upgrade --from A --to B`: the data a team's server holds, through B's migration of A's database. */
import type { Command } from 'commander';
import { addRunOptions, type CommandResult, givenFlags } from './runFlags.js';

export function declareUpgrade(root: Command, result: CommandResult): void {
  addRunOptions(
    root
      .command('upgrade')
      .requiredOption('--from <version>', 'the Prefect release the corpus is written through')
      .requiredOption('--to <version>', "the release whose own migration upgrades A's database")
      .option(
        '--after-migration <command>',
        "a shell command run after B's migration and before B starts (the database's URL in CONFORMANCE_DATABASE_URL)",
      )
      .description(
        "write a corpus through release A (managed, on --db), migrate its database with release B's `prefect server database upgrade`, read every object back through B and compare, then run B's suite on the migrated database; exit 1 on a loss or changed field no baseline entry of B names, or on B's gate",
      ),
    false,
  ).action(async (opts: { from: string; to: string; afterMigration?: string }, command: Command) => {
    const { upgradeCommand } = await import('../upgrade.js');
    result.code = await upgradeCommand(opts, givenFlags(command));
  });
}
