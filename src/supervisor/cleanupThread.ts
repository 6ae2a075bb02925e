/**
 * The run's cleanup, called by the supervising CLI in the run's thread (supervisor/runThread.ts), after the preflight. vitest runs in the
 * CLI's process (supervisor/suitesInProcess.ts), and its reporters hold the main thread for seconds after the last
 * request (allure's ~4,000 files): in this thread, cleanup learns that the suites have ended and deletes what
 * they made meanwhile, with the server otherwise idle. The CLI calls `watch` when it hands the suites their
 * configuration, and `finish` once vitest has closed.
 */
import { readFileSync } from 'node:fs';
import { appeared } from '../config/runFolder.js';
import { readExchangeLog } from '../config/exchangeLog.js';
import { distanceSample, servedAnswerTimes } from '../http/behaviour.js';
import { type HttpClient, supervisorClient } from '../http/client.js';
import { harRecorder } from '../http/recorders.js';
import { WINDOW } from '../http/pacing/overlap.js';
import type { PacingSummary } from '../config/pacingStatus.js';
import { profileNamed } from '../model/profiles/index.js';
import type { RequestToSend } from '../openapi/request.js';
import type { SuitesEnded } from '../adapters/vitest/vitestReporter.js';
import {
  type CleanupPass,
  type CleanupSummary,
  cleanup,
  cleanupMadeForNames,
  cleanupMadeForRun,
  cleanupSideEffects,
  deleteBusyAgain,
  recheckFailed,
} from '../resources/cleanup.js';
import type { Credentials } from './preflight.js';

export interface CleanupTarget extends Credentials {
  baseUrl: string;
  timeoutMs: number;
  /** The ledger of what the suites made. */
  ledger: string;
  /** The suites' exchange log: their answer times tell cleanup's client how far the target is. */
  exchanges: string;
  /** The file the suites' results reporter writes when nothing more will be sent. */
  suitesEnded: string;
  /** Cleanup's own time, from its start: what is not deleted by then is reported, not waited for. */
  seconds: number;
  /** Why nothing is sent after that time, for the report. */
  why: string;
  /** --max-rate. */
  maxRate?: number;
  /** Where each exchange goes as a HAR entry, where --report har asks. */
  harEntries?: string;
}

export interface CleanupEnd {
  profile: string;
  runTag: string;
  readOnly: boolean;
  /** The paths of the profile's side effects that were absent before the run (preflight's targetState). */
  absentSideEffects: string[];
}

export interface CleanupDone {
  report: CleanupSummary;
  /** The requests cleanup sent, counted in the run's summary. */
  requests: number;
  /** The rate limits cleanup met, and its waits for them. */
  pacing: PacingSummary;
}

/** What the suites' results reporter wrote when they ended (adapters/vitest/vitestReporter.ts); nothing learnt when unreadable. */
function suitesEndedAs(file: string): SuitesEnded {
  try {
    const read = JSON.parse(readFileSync(file, 'utf8')) as Partial<SuitesEnded>;
    return { writesTookTurns: read.writesTookTurns === true, paces: Array.isArray(read.paces) ? read.paces : [] };
  } catch {
    return { writesTookTurns: false, paces: [] };
  }
}

/** The run's cleanup in its thread: what it watches, its client, and its first pass, from `watch` to `finish`. */
export class ThreadCleanup {
  private target: CleanupTarget | undefined;
  private client: HttpClient | undefined;
  private suitesOver = false;
  /** Undefined when the suites ended without saying so: `finish` then deletes the whole ledger. */
  private firstPass: Promise<CleanupPass | undefined> | undefined;

  /**
   * Waits, in this thread's event loop, for the suites to end, then deletes what the ledger holds by then. A
   * run whose suites end without the file (interrupted, crashed) is cleaned up by `finish`.
   */
  watch(run: CleanupTarget): void {
    this.target = run;
    const watching = supervisorClient({ ...run, recorders: run.harEntries ? [harRecorder(run.harEntries)] : [] });
    this.client = watching;
    const send = (request: RequestToSend) => watching.send(request);
    this.firstPass = appeared(run.suitesEnded, () => this.suitesOver, 50).then((ended) => {
      watching.answerNothingAfter(Date.now() + run.seconds * 1000, run.why);
      const log = readExchangeLog(run.exchanges);
      watching.learnDistance(distanceSample(log, WINDOW, 'DELETE'));
      // Its deletes take turns from the first where the suites' writes ended taking turns, spaced by what the
      // suites' own deletes took: not a crowd the target refuses (503), and the halving after. Behind a rate
      // limit they start at the suites' pace, not with a burst the limit refuses (429).
      if (ended) {
        const suites = suitesEndedAs(run.suitesEnded);
        watching.learnWrites(suites.writesTookTurns, servedAnswerTimes(log, 64, 'DELETE'));
        watching.learnPaces(suites.paces);
      }
      return ended ? cleanup(send, run.ledger) : undefined;
    });
    // Its failure is thrown by finish; unhandled until then, it would end the thread.
    this.firstPass.catch(() => {});
  }

  /**
   * After vitest has closed (its worker thread is gone: nothing more is made): what the ledger gained since
   * the first pass, then what the server made for the run and the side effects it caused.
   */
  async finish(end: CleanupEnd): Promise<CleanupDone> {
    const { target, client, firstPass } = this;
    if (!target || !client || !firstPass) throw new Error('cleanup finished before it watched the suites');
    this.suitesOver = true;
    const send = (request: RequestToSend) => client.send(request);
    try {
      const cleaned = await cleanup(send, target.ledger, await firstPass);
      const report = cleaned.report;
      const profile = profileNamed(end.profile);
      if (profile.madeForRun && !end.readOnly)
        await cleanupMadeForRun(send, target.ledger, end.runTag, profile.madeForRun, report);
      if (profile.madeForNames && !end.readOnly)
        await cleanupMadeForNames(send, target.ledger, profile.madeForNames, report);
      const sideEffects = (profile.sideEffects ?? []).filter((e) => end.absentSideEffects.includes(e.path));
      const sideEffectsLeft = await cleanupSideEffects(send, sideEffects, end.runTag);
      if (sideEffectsLeft.length) report.sideEffects = sideEffectsLeft;
      if (sideEffectsLeft.some((e) => e.deleted)) await recheckFailed(send, report);
      await deleteBusyAgain(send, report);
      return { report, requests: client.requestCount, pacing: client.pacing.summary() };
    } finally {
      await client.close();
    }
  }
}
