import { checkListing, checkListMarkdown } from '../report/checkList.js';

/** `checks [--json | --markdown]`: every check of the registry. */
export async function checksCommand(format: 'text' | 'json' | 'markdown'): Promise<number> {
  // The title starts with the level: one column of it is enough.
  // The registry loads every check's code (and the HTTP client): only this command needs it in the CLI.
  const { CHECKS } = await import('../checks/registry.js');
  if (format === 'json') process.stdout.write(`${JSON.stringify(checkListing(CHECKS), null, 2)}\n`);
  else if (format === 'markdown') process.stdout.write(checkListMarkdown(CHECKS));
  else
    for (const c of checkListing(CHECKS))
      process.stdout.write(`${c.id.padEnd(44)} ${c.family.padEnd(13)} ${c.title} (clause: ${c.clause})\n`);
  return 0;
}
