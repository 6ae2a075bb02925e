/**
 * `npm run conformance [-- command] [flags]`: the command line. Commands, flags and help come from commander,
 * flags from the one option table (config/options.ts); each command is a module of src/commands/. Bad input:
 * one line on stderr and exit code 2.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import { checkModulesFrom, UsageError, type Env } from './config/config.js';
import { flagsNpmTook } from './config/npmRun.js';
import { CONFIG_OPTION, OPTION_GROUPS, RUN_OPTIONS, type RunOption, SECRET_VARIABLES } from './config/options.js';
import { TOOL } from './report/tool.js';
import { knownVersions, readPin } from './managed/prefect.js';
import { repoRoot, SHIPPED_BASELINES } from './commands/shared.js';

/** `--version`: the suite's version and the API versions it knows (the pinned server, its baselines, its reference). */
function versionText(): string {
  const baselines = readdirSync(SHIPPED_BASELINES)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.replace(/\.json$/, ''));
  const reference = JSON.parse(
    readFileSync(path.join(repoRoot, 'fixtures', 'reference', 'prefect-openapi.json'), 'utf8'),
  ) as { openapi: string; info: { title: string; version: string } };
  return [
    `${TOOL.name} ${TOOL.version}`,
    `managed server: Prefect ${readPin().prefect} (also: ${knownVersions().slice(1).join(', ')}; --prefect-version)`,
    `baselines: ${baselines.join(', ')}`,
    `reference document: ${reference.info.title} ${reference.info.version} (OpenAPI ${reference.openapi})`,
  ].join('\n');
}

/** The flags a command was given, as the variables they set (values from the environment or defaults are not flags). */
function givenFlags(command: Command): Env {
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
function addRunOptions(command: Command, listed = true): Command {
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

function commonRunFlags(): string {
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
const EXAMPLES = [
  'conformance                                        a managed local Prefect, every check; reports in reports/',
  'conformance --base-url https://prefect.example/api your server (CONFORMANCE_API_KEY for its key)',
  'conformance --base-url URL --read-only             against production: reads only',
  'conformance --families filters,sorting --budget 60 two families, at most a minute of sending',
  'conformance replay reports --check contract.no-5xx rerun a failing check of the last run',
];
const RUN_EXAMPLES = `\nExamples:\n${EXAMPLES.map((e) => `  ${e}`).join('\n')}`;

/**
 * The command line: commands, flags and help, by commander; every error one line and exit 2. Each command's
 * module loads when the command is chosen: a run's main thread never loads the checks, the HTTP client or the
 * validators, which its threads hold.
 */
function program(result: { code: number }): Command {
  const secrets = SECRET_VARIABLES.map((v) => `  ${v.env.padEnd(26)} ${v.description}`).join('\n');
  const root = new Command('conformance')
    .description('Conformance suite for the Orchestration REST API (Prefect server and compatible implementations)')
    .option('-V, --version', "the suite's version and the API versions it knows")
    .helpOption('-h, --help', 'this help')
    // Commander's "(Did you mean --base-url?)" goes on the error's own line: every error is one line.
    .configureOutput({
      outputError: (text, write) =>
        write(
          `conformance: ${text
            .replace(/^error: /, '')
            .trim()
            .replace(/\s*\n\s*/g, ' ')}\n`,
        ),
    })
    .exitOverride()
    .addHelpText(
      'after',
      `\nThe common run flags (run is the default command; \`conformance run --help\` lists all ${RUN_OPTIONS.length + 1}):\n\n${commonRunFlags()}\nSecrets, from the environment only:\n${secrets}\n\nExamples:\n${EXAMPLES.slice(
        0,
        3,
      )
        .map((e) => `  ${e}`)
        .join('\n')}\n\nExit codes: 0 every MUST check passed (baseline applied), 1 a gate failure, 2 bad input.`,
    );
  // Read only when asked (commander's .version() wants the text up front): the reference document it names is
  // 1.3 MB of JSON, not worth parsing on every start.
  root.on('option:version', () => {
    process.stdout.write(`${versionText()}\n`);
    throw new CommanderError(0, 'commander.version', 'version');
  });
  addRunOptions(
    root
      .command('run', { isDefault: true })
      .description('run the suite against a target (the default command) and write the reports')
      .addHelpText('after', RUN_EXAMPLES),
  ).action(async (_opts, command: Command) => {
    const { runCommand } = await import('./commands/run.js');
    result.code = await runCommand(givenFlags(command));
  });
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
    const { compareCommand } = await import('./commands/compare.js');
    result.code = await compareCommand(a, b, givenFlags(command));
  });
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
      const { replayCommand } = await import('./commands/replay.js');
      result.code = await replayCommand(results, opts, givenFlags(command));
    },
  );
  root
    .command('merge')
    .argument('[dirs...]', 'folders of blob reports (default: <out>/blob)')
    .option('--out <dir>', 'where the merged reports go', 'reports')
    .description('merge the blob reports of a sharded run (--shard i/n) into one set of reports')
    .action(async (dirs: string[], _opts, command: Command) => {
      const { mergeCommand } = await import('./commands/merge.js');
      result.code = await mergeCommand(dirs, givenFlags(command));
    });
  const baseline = root.command('baseline').description('maintain a baseline of known deviations');
  baseline
    .command('update')
    .description("write a baseline from a run's results: keyed entries for its failures, others kept")
    .option('--from <file>', "the run's results.json", '<out>/results.json')
    .option('--baseline <file>', 'the baseline to start from (CONFORMANCE_BASELINE)')
    .option('--out <file>', 'where to write the new baseline', 'baseline.json beside --from')
    .action(async (opts: { from?: string; baseline?: string; out?: string }, command: Command) => {
      const given = (name: string) =>
        command.getOptionValueSource(name) === 'cli' ? (opts as Record<string, string>)[name] : undefined;
      const { baselineUpdate } = await import('./commands/baseline.js');
      result.code = baselineUpdate(given('from'), given('baseline'), given('out'));
    });
  baseline
    .command('verify')
    .description('whether each entry still shows on the target, from a run against it (exit 1 when one is stale)')
    .option('--from <file>', "the run's results.json", '<out>/results.json')
    .option('--baseline <file>', 'the baseline to verify', 'the one the run applied')
    .action(async (opts: { from?: string; baseline?: string }, command: Command) => {
      const given = (name: string) =>
        command.getOptionValueSource(name) === 'cli' ? (opts as Record<string, string>)[name] : undefined;
      const { baselineVerify } = await import('./commands/baseline.js');
      result.code = baselineVerify(given('from'), given('baseline'));
    });
  baseline
    .command('findings')
    .description("write the real deviations the shipped baselines name, for the server's maintainers")
    .option('--out <file>', 'where to write them', 'docs/findings.md')
    .action(async (opts: { out?: string }, command: Command) => {
      const { baselineFindings } = await import('./commands/baseline.js');
      result.code = await baselineFindings(command.getOptionValueSource('out') === 'cli' ? opts.out : undefined);
    });
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
      const { checksCommand } = await import('./commands/checks.js');
      result.code = await checksCommand(opts.json ? 'json' : opts.markdown ? 'markdown' : 'text', modules);
    });
  return root;
}

/** The command of `names` nearest a mistyped word, as commander suggests it, if one is near. */
function nearestCommand(word: string, names: string[]): string | undefined {
  let said = '';
  const probe = new Command().exitOverride().configureOutput({
    writeErr: (text) => {
      said += text;
    },
    writeOut: () => {},
  });
  for (const name of names) probe.command(name);
  try {
    probe.parse([word], { from: 'user' });
  } catch {
    // The unknown command is the point: its message holds the suggestion.
  }
  return /Did you mean (\S+)\?/.exec(said)?.[1];
}

/** Why a word where a command goes is none, and what was meant. */
function unknownCommand(word: string, known: string[]): UsageError {
  const took = flagsNpmTook();
  if (took.length)
    return new UsageError(
      `unknown command "${word}": npm took ${took.join(', ')} for itself; after \`npm run conformance\` the suite's flags go after --: npm run conformance -- ${took[0]} ${word}`,
    );
  const near = nearestCommand(word, known);
  return new UsageError(
    `unknown command "${word}"${near ? ` (did you mean ${near}?)` : ''} (commands: ${known.join(', ')}; see --help)`,
  );
}

export async function main(argv: string[]): Promise<number> {
  const result = { code: 0 };
  const root = program(result);
  // A word where a command goes that is no command would otherwise reach `run` as a stray argument.
  const known = [...root.commands.map((c) => c.name()), 'help'];
  if (argv[0] && !argv[0].startsWith('-') && !known.includes(argv[0])) throw unknownCommand(argv[0], known);
  try {
    await root.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    // Help and version are answers, not errors; commander has already written its one line for the rest.
    if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(e.code)) return 0;
    return 2;
  }
  return result.code;
}

const invokedDirectly = process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      if (e instanceof UsageError) {
        process.stderr.write(`conformance: ${e.message}\n`);
        process.exit(2);
      }
      process.stderr.write(`conformance: internal error: ${(e as Error).stack ?? e}\n`);
      process.exit(1);
    },
  );
}
