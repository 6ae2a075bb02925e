/**
 * The run flags as commander options: on the commands that run the suite (run's help lists them, compare and
 * replay take them for the runs they make), the few most runs need in the root's help, and the flags a
 * command was given as the variables they set. One source for all of it: the option table (config/options.ts).
 */
import { type Command, Option } from 'commander';
import type { Env } from '../../config/config.js';
import { CONFIG_OPTION, OPTION_GROUPS, RUN_OPTIONS, type RunOption } from '../../config/options.js';

/** What a command's action sets: the exit code of the process. */
export interface CommandResult {
  code: number;
}

/** The flags a command was given, as the variables they set (values from the environment or defaults are not flags). */
export function givenFlags(command: Command): Env {
  const env: Env = {};
  for (const option of [...RUN_OPTIONS, CONFIG_OPTION]) {
    const key = new Option(option.flag).attributeName();
    if (command.getOptionValueSource(key) !== 'cli') continue;
    const value = command.getOptionValue(key) as string | boolean;
    env[option.env] = value === true ? '1' : String(value);
  }
  return env;
}

/**
 * The run flags on a command that runs the suite. `listed`: in its help (run's); compare and replay take
 * them too, for the runs they make, and their help points at run's rather than repeating 33 flags.
 */
export function addRunOptions(command: Command, listed = true): Command {
  const all = [...RUN_OPTIONS, CONFIG_OPTION];
  if (!listed) command.addHelpText('after', '\nThe run flags (`conformance run --help`) apply to the runs it makes.');
  for (const group of OPTION_GROUPS)
    for (const flag of group.flags) {
      const option = all.find((o) => o.flag === flag)!;
      // The default and the variable are part of the description: commander's own .env() and .default() would
      // read them itself, and the file's values must sit between the environment and the defaults.
      const extra = `(${option.default ? `default: ${option.default}; ` : ''}env: ${option.env})`;
      const added = new Option(flagWithValue(option), `${option.description} ${extra}`).helpGroup(group.heading);
      command.addOption(listed ? added : added.hideHelp());
    }
  return command;
}

/** An option as help shows it: its flag, and the placeholder of its value. */
const flagWithValue = (option: RunOption) => (option.value ? `${option.flag} <${option.value}>` : option.flag);

/**
 * The run flags most runs need, in the root's help, in run's groups (what to test, what to run, how to judge,
 * how fast, where the results go) and described as RUN_OPTIONS describes them (one source for help).
 */
const COMMON_RUN_FLAGS = new Set([
  '--base-url',
  '--read-only',
  '--operations',
  '--families',
  '--baseline',
  '--gate-should',
  '--budget',
  '--out',
]);

export function commonRunFlags(): string {
  return OPTION_GROUPS.map((group) => {
    const flags = group.flags.filter((flag) => COMMON_RUN_FLAGS.has(flag));
    if (flags.length === 0) return '';
    const lines = flags.map((flag) => {
      const option = RUN_OPTIONS.find((o) => o.flag === flag)!;
      return `  ${flagWithValue(option).padEnd(29)} ${option.description}${option.default ? ` (default: ${option.default})` : ''}`;
    });
    return `${group.heading}\n${lines.join('\n')}\n`;
  })
    .filter(Boolean)
    .join('\n');
}

/** What `run --help` ends with: the commands people start from. */
export const EXAMPLES = [
  'conformance                                        a managed local Prefect, every check; reports in reports/',
  'conformance --base-url https://prefect.example/api your server (CONFORMANCE_API_KEY for its key)',
  'conformance --base-url URL --read-only             against production: reads only',
  'conformance --families filters,sorting --budget 60 two families, at most a minute of sending',
  'conformance replay reports --check contract.no-5xx rerun a failing check of the last run',
];
export const RUN_EXAMPLES = `\nExamples:\n${EXAMPLES.map((e) => `  ${e}`).join('\n')}`;
