/** `compare A B`: two runs, documents or targets side by side. */
import type { Command } from 'commander';
import { addRunOptions, type CommandResult, givenFlags } from './runFlags.js';

export function declareCompare(root: Command, result: CommandResult): void {
  addRunOptions(
    root
      .command('compare')
      .argument(
        '<a>',
        'side A: results.json (or its folder), an OpenAPI document, a URL, managed:sqlite, managed:postgres or managed:prefect@X[/postgres]',
      )
      .argument('<b>', 'side B, the same kinds')
      .description(
        'compare two runs, documents or targets (URL and managed sides are run with the same seed); exit 1 when B regressed',
      ),
    false,
  ).action(async (a: string, b: string, _opts, command: Command) => {
    const { compareCommand } = await import('../compare.js');
    result.code = await compareCommand(a, b, givenFlags(command));
  });
}
