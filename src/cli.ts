/**
 * `npm run conformance [-- command] [flags]`: the command line. It assembles the commands, each of which
 * declares its own arguments, flags and help (src/commands/declare/, the run flags from the one option table,
 * config/options.ts) and loads its module of src/commands/ when chosen. Bad input: one line on stderr and exit
 * code 2.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { UsageError } from './config/config.js';
import { GateFailure } from './config/errors.js';
import { type Env, processEnvironment } from './config/env.js';
import { flagsNpmTook } from './config/npmRun.js';
import { RUN_OPTIONS, SECRET_VARIABLES } from './config/options.js';
import { declareBaseline } from './commands/declare/baseline.js';
import { declareChecks } from './commands/declare/checks.js';
import { declareCompare } from './commands/declare/compare.js';
import { declareUpgrade } from './commands/declare/upgrade.js';
import { declareExplore } from './commands/declare/explore.js';
import { declareMerge } from './commands/declare/merge.js';
import { declareReplay } from './commands/declare/replay.js';
import { declareRun } from './commands/declare/run.js';
import { type CommandResult, commonRunFlags, EXAMPLES } from './commands/declare/runFlags.js';
import { TOOL } from './report/tool.js';
import { knownVersions, readPin } from './managed/prefect.js';
import { repoRoot, SHIPPED_BASELINES } from './commands/repository.js';

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

/**
 * The command line: commands, flags and help, by commander; every error one line and exit 2. Each command's
 * module loads when the command is chosen: a run's main thread never loads the checks, the HTTP client or the
 * validators, which its threads hold.
 */
function program(result: CommandResult): Command {
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
  // Each command declares its own arguments, flags and help (commands/declare/).
  for (const declare of [
    declareRun,
    declareCompare,
    declareUpgrade,
    declareExplore,
    declareReplay,
    declareMerge,
    declareBaseline,
    declareChecks,
  ])
    declare(root, result);
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

/**
 * Names a setting had before it was given one with a single meaning: the flag and the variable, each still
 * accepted, with a note, as the current one.
 */
const FORMER_NAMES = [
  { flag: '--spec', env: 'CONFORMANCE_SPEC', now: '--document', nowEnv: 'CONFORMANCE_DOCUMENT' },
  { flag: '--runs', env: 'CONFORMANCE_RUNS', now: '--generated', nowEnv: 'CONFORMANCE_GENERATED' },
];

/** Whether the command (the first argument) takes the run flags: run, the default, and those that make runs. */
const TAKES_RUN_FLAGS = (first: string | undefined) =>
  first === undefined || first.startsWith('-') || ['run', 'compare', 'explore', 'replay', 'upgrade'].includes(first);

/** The arguments with each former flag (and a former variable the environment sets) as its current flag. */
function withCurrentNames(argv: string[], env: Env): string[] {
  const out = [...argv];
  for (const name of FORMER_NAMES) {
    let renamed = false;
    for (let i = 0; i < out.length; i++) {
      if (out[i] === name.flag) out[i] = name.now;
      else if (out[i].startsWith(`${name.flag}=`)) out[i] = `${name.now}=${out[i].slice(name.flag.length + 1)}`;
      else continue;
      renamed = true;
    }
    if (renamed)
      process.stderr.write(
        `conformance: ${name.flag} is now ${name.now} (both work; ${name.flag} is the former name)\n`,
      );
    const former = env[name.env];
    const given = out.some((a) => a === name.now || a.startsWith(`${name.now}=`));
    if (former && !env[name.nowEnv] && !given && TAKES_RUN_FLAGS(out[0])) {
      process.stderr.write(`conformance: ${name.env} is now ${name.nowEnv} (both work)\n`);
      out.push(`${name.now}=${former}`);
    }
  }
  return out;
}

export async function main(given: string[]): Promise<number> {
  const argv = withCurrentNames(given, processEnvironment());
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
      if (e instanceof UsageError || e instanceof GateFailure) {
        process.stderr.write(`conformance: ${e.message}\n`);
        process.exit(e.exitCode);
      }
      process.stderr.write(`conformance: internal error: ${(e as Error).stack ?? e}\n`);
      process.exit(1);
    },
  );
}
