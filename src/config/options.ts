/**
 * The options of a run, one record each (as the OCI conformance config names each field's variable): its
 * flag, its environment variable, its key in the configuration file, what it means and its default. The
 * command line's help, the configuration file's schema and docs/usage.md's table are all read from here, so
 * that the three can never disagree. Values travel as strings under their variable's name: flags win over
 * the environment, which wins over the file, which wins over the defaults (config.ts).
 */

export interface RunOption {
  /** The flag, e.g. `--base-url`. */
  flag: string;
  /** The environment variable it sets. */
  env: string;
  /** Its key in conformance.config.json; none for a secret, which a file in a repository must not hold. */
  key?: string;
  /** The value's placeholder in help, for an option that takes one. */
  value?: string;
  /** A flag without a value (true when given). */
  boolean?: boolean;
  /** The value's type in the configuration file. */
  type: 'string' | 'integer' | 'boolean' | 'list';
  description: string;
  /** The default, as help shows it. */
  default?: string;
}

export const RUN_OPTIONS: readonly RunOption[] = [
  {
    flag: '--base-url',
    env: 'CONFORMANCE_BASE_URL',
    key: 'baseUrl',
    value: 'url',
    type: 'string',
    description: 'the API root of the target (then PREFECT_API_URL, then the active Prefect profile)',
    default: 'a managed local Prefect server',
  },
  {
    flag: '--document',
    env: 'CONFORMANCE_DOCUMENT',
    key: 'document',
    value: 'file|url',
    type: 'string',
    description: "the OpenAPI document to test against, instead of the target's own",
    default: '<base-url>/openapi.json',
  },
  {
    flag: '--out',
    env: 'CONFORMANCE_OUT',
    key: 'out',
    value: 'dir',
    type: 'string',
    description:
      "where the reports go; a run leaves there its own files only (what earlier runs and comparisons wrote under the suite's names goes, other files stay)",
    default: 'reports (compare: comparison)',
  },
  {
    flag: '--report',
    env: 'CONFORMANCE_REPORT',
    key: 'report',
    value: 'list',
    type: 'list',
    description:
      'report formats beyond those every run writes (results.json, junit.xml, summary.md, index.html): har (exchanges.har, every exchange of the run as HAR 1.2, secrets redacted)',
    default: 'none',
  },
  {
    flag: '--seed',
    env: 'CONFORMANCE_SEED',
    key: 'seed',
    value: 'n|random',
    type: 'string',
    description: 'the seed of generated requests: the same seed sends the same requests',
    default: '20261121',
  },
  {
    flag: '--baseline',
    env: 'CONFORMANCE_BASELINE',
    key: 'baseline',
    value: 'file|auto|none',
    type: 'string',
    description:
      "the known deviations to report as xfail, not failed; auto: the suite's baseline for the target's release (fixtures/baselines/<profile>-<release>.json, or the nearest of its minor), managed or by URL",
    default: 'auto',
  },
  {
    flag: '--read-only',
    env: 'CONFORMANCE_READ_ONLY',
    key: 'readOnly',
    boolean: true,
    type: 'boolean',
    description: 'send only reads (GET and the read POSTs): safe against production',
    default: 'off',
  },
  {
    flag: '--gate-should',
    env: 'CONFORMANCE_GATE_SHOULD',
    key: 'gateShould',
    boolean: true,
    type: 'boolean',
    description:
      'SHOULD failures fail the run too, and show as failed tests in junit.xml and Allure (MAY failures never do)',
    default: 'off: only MUST failures gate',
  },
  {
    flag: '--allow-writes',
    env: 'CONFORMANCE_ALLOW_WRITES',
    key: 'allowWrites',
    boolean: true,
    type: 'boolean',
    description:
      "let the suite create, change and delete its own objects on a target taken from Prefect's settings (PREFECT_API_URL, the active profile), which is otherwise run read-only",
    default: 'off',
  },
  {
    flag: '--disposable',
    env: 'CONFORMANCE_DISPOSABLE_TARGET',
    key: 'disposable',
    boolean: true,
    type: 'boolean',
    description: "the target's data may be changed beyond the run's own objects",
    default: 'on for the managed server, off for a URL',
  },
  {
    flag: '--db',
    env: 'CONFORMANCE_DB',
    key: 'db',
    value: 'sqlite|postgres',
    type: 'string',
    description: "the managed server's database",
    default: 'sqlite',
  },
  {
    flag: '--prefect-version',
    env: 'CONFORMANCE_PREFECT_VERSION',
    key: 'prefectVersion',
    value: 'x.y.z',
    type: 'string',
    description:
      "the managed server's Prefect release, installed into a venv of its own with the pins prefect-versions.json lists for it",
    default: 'the pin in prefect-versions.json',
  },
  {
    flag: '--operations',
    env: 'CONFORMANCE_OPERATIONS',
    key: 'operations',
    value: 'regex',
    type: 'string',
    description: 'run only the operations ("METHOD /path") the expression matches',
    default: 'all',
  },
  {
    flag: '--exclude-operations',
    env: 'CONFORMANCE_EXCLUDE_OPERATIONS',
    key: 'excludeOperations',
    value: 'regex',
    type: 'string',
    description: 'leave out the operations ("METHOD /path") the expression matches',
    default: 'none',
  },
  {
    flag: '--tags',
    env: 'CONFORMANCE_TAGS',
    key: 'tags',
    value: 'list',
    type: 'list',
    description: 'run only operations with one of these document tags (comma-separated)',
    default: 'all',
  },
  {
    flag: '--exclude-tags',
    env: 'CONFORMANCE_EXCLUDE_TAGS',
    key: 'excludeTags',
    value: 'list',
    type: 'list',
    description: 'leave out operations with one of these document tags',
    default: 'none',
  },
  {
    flag: '--methods',
    env: 'CONFORMANCE_METHODS',
    key: 'methods',
    value: 'list',
    type: 'list',
    description: 'run only operations of these HTTP methods (e.g. GET,POST)',
    default: 'all',
  },
  {
    flag: '--exclude-methods',
    env: 'CONFORMANCE_EXCLUDE_METHODS',
    key: 'excludeMethods',
    value: 'list',
    type: 'list',
    description: 'leave out operations of these HTTP methods',
    default: 'none',
  },
  {
    flag: '--checks',
    env: 'CONFORMANCE_CHECKS',
    key: 'checks',
    value: 'list',
    type: 'list',
    description: 'run only these checks: ids or globs (contract.*, *.oracle); see `conformance checks`',
    default: 'all',
  },
  {
    flag: '--exclude-checks',
    env: 'CONFORMANCE_EXCLUDE_CHECKS',
    key: 'excludeChecks',
    value: 'list',
    type: 'list',
    description: 'leave out these checks: ids or globs',
    default: 'none',
  },
  {
    flag: '--families',
    env: 'CONFORMANCE_FAMILIES',
    key: 'families',
    value: 'list',
    type: 'list',
    description: 'run only these families of checks (contract, filters, ...)',
    default: 'all',
  },
  {
    flag: '--exclude-families',
    env: 'CONFORMANCE_EXCLUDE_FAMILIES',
    key: 'excludeFamilies',
    value: 'list',
    type: 'list',
    description: 'leave out these families of checks',
    default: 'none',
  },
  {
    flag: '--check-modules',
    env: 'CONFORMANCE_CHECK_MODULES',
    key: 'checkModules',
    value: 'files',
    type: 'list',
    description:
      'add your own checks: modules whose default export is checks made by defineCheck (orchestration-api-conformance/check), each in a family of its own',
    default: 'none',
  },
  {
    flag: '--generated',
    env: 'CONFORMANCE_GENERATED',
    key: 'generated',
    value: 'n',
    type: 'integer',
    description: 'generated requests (random bodies) per operation',
    default: '10',
  },
  {
    flag: '--timeout-ms',
    env: 'CONFORMANCE_TIMEOUT_MS',
    key: 'timeoutMs',
    value: 'ms',
    type: 'integer',
    description: 'the timeout of one request',
    default: '10000',
  },
  {
    flag: '--concurrency',
    env: 'CONFORMANCE_CONCURRENCY',
    key: 'concurrency',
    value: 'n',
    type: 'integer',
    description: 'requests in flight at once (checks are judged side by side)',
    default: '4',
  },
  {
    flag: '--suite-node-flags',
    env: 'CONFORMANCE_SUITE_NODE_FLAGS',
    key: 'suiteNodeFlags',
    value: 'flags',
    type: 'string',
    description:
      'Node flags for the thread that runs the suites, space-separated (e.g. --suite-node-flags=--max-old-space-size=8192 for a very large document); a thread that cannot start is tried once more, then the run stops with exit 2',
    default: 'none',
  },
  {
    flag: '--max-rate',
    env: 'CONFORMANCE_MAX_RATE',
    key: 'maxRate',
    value: 'requests/s',
    type: 'string',
    description:
      "at most this many requests a second, to stay under a quota you know; the target's own limits (429 and Retry-After) are followed anyway",
    default: "no limit but the target's",
  },
  {
    flag: '--budget',
    env: 'CONFORMANCE_BUDGET',
    key: 'budget',
    value: 'seconds',
    type: 'integer',
    description:
      'a time-boxed run: every family planned at once, the cases that catch the most per exchange first; nothing is sent once SECONDS have passed since the suites started; what was not reached is reported as not run',
  },
  {
    flag: '--deadline',
    env: 'CONFORMANCE_DEADLINE',
    key: 'deadline',
    value: 'seconds',
    type: 'integer',
    description:
      'the most a run may send for, counted from when the suites started; checks not reached by then are not run, and the run fails. Cleanup afterwards has as long again, at most 600 s; what it could not delete in that time is listed and fails the run',
    default: '1800',
  },
  {
    flag: '--run-tag',
    env: 'CONFORMANCE_RUN_TAG',
    key: 'runTag',
    value: 'tag',
    type: 'string',
    description: 'the mark on every object the run creates ([a-z0-9-]{4,40})',
    default: 'conformance-<seed>-<time>',
  },
  {
    flag: '--shard',
    env: 'CONFORMANCE_SHARD',
    key: 'shard',
    value: 'i/n',
    type: 'string',
    description: 'run the i-th of n parts of the run (merge them with `conformance merge`)',
    default: 'the whole run',
  },
  {
    flag: '--server-version',
    env: 'CONFORMANCE_SERVER_VERSION',
    key: 'serverVersion',
    value: 'x.y.z',
    type: 'string',
    description:
      "the release a target given by URL runs, where it does not say (a hosted edition has no GET /admin/version): the automatic baseline is that release's, or the nearest of its minor",
    default: 'GET /admin/version, else the shipped release whose document is nearest',
  },
  {
    flag: '--target-label',
    env: 'CONFORMANCE_TARGET_LABEL',
    key: 'targetLabel',
    value: 'text',
    type: 'string',
    description:
      'a name for the target in reports; baseline entries with onlyOn apply when it contains theirs (instead of the database the suite finds)',
    default: 'prefect <release> on <database>, as found',
  },
  {
    flag: '--quiet',
    env: 'CONFORMANCE_QUIET',
    key: 'quiet',
    boolean: true,
    type: 'boolean',
    description: 'no progress and no log lines',
    default: 'off',
  },
];

/**
 * The run options in the groups help shows them in, a user's questions in turn: what to test, what to
 * include, how to judge, how fast and for how long, and where the results go.
 */
export const OPTION_GROUPS: ReadonlyArray<{ heading: string; flags: readonly string[] }> = [
  {
    heading: 'The target:',
    flags: [
      '--base-url',
      '--document',
      '--read-only',
      '--allow-writes',
      '--disposable',
      '--db',
      '--prefect-version',
      '--server-version',
      '--target-label',
    ],
  },
  {
    heading: 'What to run:',
    flags: [
      '--operations',
      '--exclude-operations',
      '--tags',
      '--exclude-tags',
      '--methods',
      '--exclude-methods',
      '--checks',
      '--exclude-checks',
      '--families',
      '--exclude-families',
      '--check-modules',
      '--shard',
    ],
  },
  { heading: 'The verdict:', flags: ['--baseline', '--gate-should', '--seed', '--generated'] },
  { heading: 'Pace and time:', flags: ['--concurrency', '--max-rate', '--timeout-ms', '--budget', '--deadline'] },
  {
    heading: 'Reports and settings:',
    flags: ['--out', '--report', '--run-tag', '--quiet', '--suite-node-flags', '--config'],
  },
];

/** The option that names the configuration file; it is read before the file is. */
export const CONFIG_OPTION: RunOption = {
  flag: '--config',
  env: 'CONFORMANCE_CONFIG',
  value: 'file',
  type: 'string',
  description: 'the configuration file',
  default: 'conformance.config.json in the working folder, when it exists',
};

/**
 * Secrets are read from the environment only: a flag would show in the process list and a CI log, and a
 * configuration file is often committed.
 */
export const SECRET_VARIABLES: ReadonlyArray<{ env: string; description: string }> = [
  { env: 'CONFORMANCE_API_KEY', description: 'a bearer token (then PREFECT_API_KEY, then the active Prefect profile)' },
  {
    env: 'CONFORMANCE_AUTH_STRING',
    description: 'HTTP basic credentials, user:pass (then PREFECT_API_AUTH_STRING, then the active Prefect profile)',
  },
];
