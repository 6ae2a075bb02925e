/**
 * The suites run by vitest in the CLI's own process, through vitest's Node API: vitest's main side (its
 * scheduler and reporters) on the CLI's main thread, the suites in vitest's worker thread, and no second
 * copy of node beside them (docs/performance.md, "Decisions, and why").
 *
 * vitest is made for a process of its own: it listens for SIGINT and SIGTERM, and for unhandled rejections,
 * and ends the process (`process.exit()`). In the CLI's process that would end the run before its cleanup.
 * Those listeners are taken off as vitest is created; the CLI stops the suites itself (`stop`: vitest's
 * pool terminates the worker thread), and an unhandled rejection on the main thread while vitest runs is
 * reported and stops them too.
 */
import { PROVIDED_START } from '../adapters/vitest/provided.js';
import type { WorkerStart } from '../config/worker.js';
import { Writable } from 'node:stream';
import type { Vitest } from 'vitest/node';

/** Reporters by file or name, each with its options where it takes some (vitest's `[file, options]`). */
export type Reporters = Array<string | [string, Record<string, unknown>]>;

export interface SuitesOptions {
  /** The repository: the suite files and the reporters are found from it. */
  root: string;
  /** Every reporter, by file or name (they replace the configured ones, as `--reporter` flags would). */
  reporters: Reporters;
  /** `i/n`: this shard's suite files only. */
  shard?: string;
  /** Where the blob reporter (named in `reporters`) writes. */
  blobFile?: string;
  /** A folder of blob reports to merge into the reporters' output instead of running the suites. */
  mergeReports?: string;
  /** The run has families of its own (--check-modules): their suite file runs too. */
  declaresFamilies?: boolean;
  /** Keep the suites' transformed modules on disk (suitesConfig.ts); on unless said otherwise. */
  moduleCache?: boolean;
  /** The run's configuration at the start, provided to the suites as a value (adapters/vitest/provided.ts). */
  start?: WorkerStart;
  /** Node flags for the suites' worker thread, by attempt (0, then 1 for the retry); none unless given. */
  workerFlags?: (attempt: number) => string[];
  log(line: string): void;
}

export interface SuitesEnd {
  /** vitest's exit code: 1 when a test or vitest itself failed, 130 when stopped. */
  code: number;
  /** A failure of vitest's own (not of a test): a suite file it could not start, an unhandled rejection. */
  failure?: string;
  /**
   * The suites' worker thread could not start, at the first try and again at the retry: nothing was judged
   * and nothing sent. Its cause, in one line.
   */
  notStarted?: string;
}

/** How often the worker is started before the suites give up: a busy machine may miss vitest's start timeout once. */
export const WORKER_STARTS = 2;

/**
 * vitest's stderr, less the one message its pool writes, with a stack, when it stops a worker that never started
 * ("torn down or never initialized"): the run says in its own line that the worker did not start.
 */
const vitestStderr = () =>
  new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const text = String(chunk);
      if (/^\[vitest-pool\]: Failed to terminate [\s\S]*never initialized/.test(text)) done();
      else process.stderr.write(chunk, done);
    },
  });

/** vitest's pool, when the worker thread did not start (or not within its timeout). */
const WORKER_NOT_STARTED = /^\[vitest-pool\]: (Failed to start|Timeout starting) \w+ (worker|runner)/;

/**
 * Why the worker never started, when it did not: the pool's error (with its cause), and no test that ran.
 * Any other failure is the run's own, reported as it is.
 */
function workerNotStarted(vitest: Vitest): string | undefined {
  const errors = vitest.state.getUnhandledErrors() as Array<{ message?: string; cause?: { message?: string } }>;
  const pool = errors.find((e) => WORKER_NOT_STARTED.test(e?.message ?? ''));
  if (!pool) return undefined;
  const ran = vitest.state
    .getTestModules()
    .some((m) => [...m.children.allTests()].some((t) => t.result().state !== 'pending'));
  if (ran) return undefined;
  const cause = pool.cause?.message ? `: ${pool.cause.message}` : '';
  return `${pool.message?.replace(/ for test files .*$/s, '')}${cause}`.replace(/\s+/g, ' ');
}

export interface Suites {
  /** How the suites ended, once vitest has closed. */
  ended: Promise<SuitesEnd>;
  /** Stops the suites now: the worker thread is terminated, and no request is sent after. */
  stop(): void;
}

/** The process events on which vitest ends the process. */
const ENDS_THE_PROCESS = ['SIGINT', 'SIGTERM', 'unhandledRejection'] as const;
type EndingEvent = (typeof ENDS_THE_PROCESS)[number];
type Listener = (...args: unknown[]) => void;

const listenersOf = (event: EndingEvent) => process.listeners(event as NodeJS.Signals) as Listener[];

/**
 * vitest for the suites, by the configuration given here (no vitest.config.ts read, so no file bundled before
 * each run), without the listeners by which it would end the process.
 */
async function createdVitest(options: SuitesOptions, attempt: number): Promise<Vitest> {
  const [{ createVitest }, { suitesConfig }] = await Promise.all([
    import('vitest/node'),
    import('../adapters/vitest/suitesConfig.js'),
  ]);
  const before = new Map(ENDS_THE_PROCESS.map((event) => [event, new Set(listenersOf(event))]));
  // createVitest makes its logger, which adds the listeners, before its first await.
  const creating = createVitest(
    'test',
    {
      root: options.root,
      config: false,
      ...suitesConfig(options),
      execArgv: options.workerFlags?.(attempt) ?? [],
      ...(options.start ? { provide: { [PROVIDED_START]: options.start } } : {}),
      reporters: options.reporters,
      run: true,
      watch: false,
      ...(options.shard ? { shard: options.shard } : {}),
      ...(options.blobFile ? { outputFile: { blob: options.blobFile } } : {}),
      ...(options.mergeReports ? { mergeReports: options.mergeReports } : {}),
    },
    {},
    { stderr: vitestStderr() },
  );
  for (const event of ENDS_THE_PROCESS)
    for (const listener of listenersOf(event)) if (!before.get(event)?.has(listener)) process.off(event, listener);
  return creating;
}

export function startSuites(options: SuitesOptions): Suites {
  let vitest: Vitest | undefined;
  let stopped = false;
  let closed = false;
  const cancel = () => {
    if (closed) return;
    // vitest cancels gently (the test that runs ends first) and, asked again while cancelling, terminates
    // the worker thread: asked twice, it stops the suites now, as SIGINT to its own process did.
    for (let i = 0; i < 2; i++) vitest?.cancelCurrentRun('keyboard-input').catch(() => {});
  };
  const stop = () => {
    stopped = true;
    cancel();
  };
  let failure: string | undefined;
  // In this process while vitest runs: most likely vitest's or a reporter's, possibly the CLI's own.
  const onRejection = (reason: unknown) => {
    failure ??= `an unhandled rejection while the suites ran: ${reason instanceof Error ? reason.message : String(reason)}`;
    options.log(`an unhandled rejection; the suites are stopped: ${(reason as Error)?.stack ?? reason}`);
    stop();
  };

  // One start of vitest and its run; the worker's start failure, when that is how it ended.
  const runOnce = async (attempt: number): Promise<string | undefined> => {
    const creating = createdVitest(options, attempt);
    try {
      vitest = await creating;
      if (stopped) cancel();
      else if (options.mergeReports) await vitest.mergeReports(options.mergeReports);
      else {
        // vitest forgets a cancel asked before its run has begun (the run clears it as it starts): a stop that
        // comes while vitest starts (a preflight that failed meanwhile) is asked again until the run has ended.
        const again = setInterval(() => stopped && cancel(), 100);
        try {
          await vitest.start([]);
        } finally {
          clearInterval(again);
        }
        return stopped ? undefined : workerNotStarted(vitest);
      }
    } catch (e) {
      // A failure of vitest's own (a bad config, a suite file it cannot start); a stopped run's is the stop's.
      if (!stopped) {
        failure ??= `vitest: ${(e as Error).message ?? e}`;
        options.log(failure);
      }
    } finally {
      await vitest?.close();
    }
    return undefined;
  };

  const ended = (async (): Promise<SuitesEnd> => {
    const exitCode = process.exitCode;
    process.exitCode = undefined;
    process.on('unhandledRejection', onRejection);
    let notStarted: string | undefined;
    try {
      for (let attempt = 0; attempt < WORKER_STARTS; attempt++) {
        notStarted = await runOnce(attempt);
        if (!notStarted || stopped) break;
        options.log(
          `the suites' worker did not start (${notStarted})${attempt + 1 < WORKER_STARTS ? '; trying once more' : ''}`,
        );
        process.exitCode = undefined;
      }
    } finally {
      closed = true;
      process.off('unhandledRejection', onRejection);
    }
    // 130 for an interrupted run, as a process ended by SIGINT.
    const code = failure || notStarted ? 1 : stopped ? 130 : Number(process.exitCode ?? 0);
    process.exitCode = exitCode;
    return notStarted ? { code, notStarted } : failure ? { code, failure } : { code };
  })();
  return { ended, stop };
}
