/**
 * The one-way flow of README.md, enforced: a stage imports only from the stages before it, never from one
 * after it, and no cycle appears. `npm test` runs this (test/unit/layers.test.ts), and so does `npm run lint`.
 * The order is the LAYERS list; `engine` joins the stages (plans, schedules, sends, judges) without knowing
 * vitest, `adapters` put it under a test runner (adapters/vitest: a test per case, which awaits its verdict),
 * `baseline` the known deviations a run applies (which file, and what each entry excuses) before anything is
 * reported, `supervisor` holds what the CLI's process does around the suites (preflight, threads, cleanup, vitest in
 * process), `upgrade` the corpus `conformance upgrade` writes and reads back, `commands` one module per command,
 * and the entry points start them.
 */
const LAYERS = [
  'config',
  'managed',
  'openapi',
  'model',
  'cases',
  'resources',
  'http',
  'checks',
  'baseline',
  'report',
  'upgrade',
  'engine',
  'adapters',
  'supervisor',
  'commands',
];
const ENTRY_POINTS = '^src/(cli|bench/main)\\.ts$';

const downstreamOf = (i) => LAYERS.slice(i + 1);

module.exports = {
  forbidden: [
    ...LAYERS.map((layer, i) => ({
      name: `${layer}-imports-downstream`,
      comment: `src/${layer} may import only from the stages before it (${LAYERS.slice(0, i).join(', ') || 'none'}), never from ${downstreamOf(i).join(', ') || 'the entry points'}`,
      severity: 'error',
      from: { path: `^src/${layer}/` },
      to: { path: [`^src/(${[...downstreamOf(i), 'cli', 'bench'].join('|')})(/|\\.ts$)`] },
    })),
    {
      name: 'checks-see-their-context',
      comment:
        'a check sees the stages before it through checks/core/context.ts only: the HTTP client and the fixture pool stay hidden',
      severity: 'error',
      from: { path: '^src/checks/', pathNot: '^src/checks/core/context\\.ts$' },
      to: { path: '^src/(http|resources)/' },
    },
    {
      name: 'reports-from-results-alone',
      comment:
        'a report is built from results alone: it imports nothing of the HTTP client (what both need, the exchange log format and the pacing summary, is in config)',
      severity: 'error',
      from: { path: '^src/report/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'engine-knows-no-test-runner',
      comment: 'the engine plans, schedules, sends and judges without vitest or its reporters: an adapter puts it under one',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { path: '(^|/node_modules/)(vitest|@vitest|allure-vitest|allure-js-commons)(/|$)' },
    },
    {
      name: 'report-knows-no-test-runner',
      comment: "report files are made from results alone: vitest's reporters are adapters (src/adapters/vitest)",
      severity: 'error',
      from: { path: '^src/report/' },
      to: { path: '(^|/node_modules/)(vitest|@vitest|allure-vitest)(/|$)' },
    },
    {
      name: 'no-import-of-entry-points',
      comment: 'cli.ts and bench/main.ts supervise; nothing imports them',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: ENTRY_POINTS },
    },
    {
      name: 'no-circular',
      comment: 'a cycle between modules is a cycle in the flow',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    parser: 'swc',
    // Type-only imports count: a type from a later stage is a dependency on it all the same.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|test|suites)/' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
