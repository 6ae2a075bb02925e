/** `checks`: every check, as text, JSON or Markdown. */
import type { Command } from 'commander';
import { checkModulesFrom, UsageError } from '../../config/config.js';
import type { CommandResult } from './runFlags.js';

export function declareChecks(root: Command, result: CommandResult): void {
  root
    .command('checks')
    .description('list every check: id, family, level, clause and title')
    .option('--json', 'as JSON')
    .option('--markdown', 'as a Markdown table')
    .option(
      '--check-modules <files>',
      'with the checks of these modules of your own (comma-separated), as a run with --check-modules has them',
    )
    .action(async (opts: { json?: boolean; markdown?: boolean; checkModules?: string }) => {
      if (opts.json && opts.markdown) throw new UsageError('checks: --json or --markdown, not both');
      const modules = checkModulesFrom(
        opts.checkModules ? { CONFORMANCE_CHECK_MODULES: opts.checkModules } : undefined,
      );
      const { checksCommand } = await import('../checks.js');
      result.code = await checksCommand(opts.json ? 'json' : opts.markdown ? 'markdown' : 'text', modules);
    });
}
