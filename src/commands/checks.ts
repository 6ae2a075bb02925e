import { checkListing, checkListMarkdown } from '../report/checkList.js';

/** `checks [--json | --markdown] [--check-modules files]`: every check of the registry, and those of the modules. */
export async function checksCommand(
  format: 'text' | 'json' | 'markdown',
  checkModules: string[] = [],
): Promise<number> {
  // The registry loads every check's code (and the HTTP client): only this command needs it in the CLI.
  const { loadCheckModules } = await import('../checks/core/registry.js');
  const checks = (await loadCheckModules(checkModules)).all;
  if (format === 'json') process.stdout.write(`${JSON.stringify(checkListing(checks), null, 2)}\n`);
  else if (format === 'markdown') process.stdout.write(checkListMarkdown(checks));
  // The title starts with the level: one column of it is enough.
  else
    for (const c of checkListing(checks))
      process.stdout.write(`${c.id.padEnd(44)} ${c.family.padEnd(13)} ${c.title} (clause: ${c.clause})\n`);
  return 0;
}
