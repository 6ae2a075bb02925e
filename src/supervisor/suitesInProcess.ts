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
  log(line: string): void;
}

export interface SuitesEnd {
  /** vitest's exit code: 1 when a test or vitest itself failed, 130 when stopped. */
  code: number;
  /** A failure of vitest's own (not of a test): a suite file it could not start, an unhandled rejection. */
  failure?: string;
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

  const ended = (async (): Promise<SuitesEnd> => {
    const [{ createVitest }, { suitesConfig }] = await Promise.all([
      import('vitest/node'),
      import('../adapters/vitest/suitesConfig.js'),
    ]);
    const exitCode = process.exitCode;
    process.exitCode = undefined;
    const before = new Map(ENDS_THE_PROCESS.map((event) => [event, new Set(listenersOf(event))]));
    // createVitest makes its logger, which adds the listeners, before its first await.
    // The configuration given here, not read from vitest.config.ts: no file to bundle before each run.
    const creating = createVitest('test', {
      root: options.root,
      config: false,
      ...suitesConfig(options),
      reporters: options.reporters,
      run: true,
      watch: false,
      ...(options.shard ? { shard: options.shard } : {}),
      ...(options.blobFile ? { outputFile: { blob: options.blobFile } } : {}),
      ...(options.mergeReports ? { mergeReports: options.mergeReports } : {}),
    });
    for (const event of ENDS_THE_PROCESS)
      for (const listener of listenersOf(event)) if (!before.get(event)?.has(listener)) process.off(event, listener);
    process.on('unhandledRejection', onRejection);
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
      }
    } catch (e) {
      // A failure of vitest's own (a bad config, a suite file it cannot start); a stopped run's is the stop's.
      if (!stopped) {
        failure ??= `vitest: ${(e as Error).message ?? e}`;
        options.log(failure);
      }
    } finally {
      await vitest?.close();
      closed = true;
      process.off('unhandledRejection', onRejection);
    }
    // 130 for an interrupted run, as a process ended by SIGINT.
    const code = failure ? 1 : stopped ? 130 : Number(process.exitCode ?? 0);
    process.exitCode = exitCode;
    return failure ? { code, failure } : { code };
  })();
  return { ended, stop };
}
