/**
 * Jobs of a run (judgements, and the exercise of operations they read) started in the order they are
 * submitted, a bounded number at a time, so that the server always has work while no check sees another's
 * writes where that would change its verdict. A job's isolation (checks/core/check.ts) decides what may run
 * beside it: `shared` jobs beside shared ones, `quiet` beside quiet ones, `alone` beside nothing but alone
 * jobs of other lanes (a lane names the state an alone job changes and compares, which jobs of other lanes
 * neither change nor read; one without a lane runs beside nothing), and `reads` jobs beside anything: they
 * change nothing, and judge nothing another job changes (behind a rate limit, the query families' reads go
 * on while `methods`' quiet and alone checks have the target, rather than before them). The head of the
 * queue waits until it fits, and nothing overtakes it: the start order is the submission order, whatever the
 * order of answers.
 * A job may carry a priority (lower first; a budgeted run's plan): it then queues before every job of a
 * higher number, and in submission order among its equals.
 */
import type { Isolation } from '../checks/core/check.js';

export type JobIsolation = Isolation | 'shared';

interface Waiting {
  isolation: JobIsolation;
  lane: string | undefined;
  priority: number;
  start: () => void;
}

export class Scheduler {
  private readonly queue: Waiting[] = [];
  private running = 0;
  /** Running jobs that wait for another's work (`meanwhile`): they hold no place in the width. */
  private waitingOnOthers = 0;
  /** Running `reads` jobs: they hold places, and leave the mode to the others. */
  private reading = 0;
  /** The isolation of the jobs running now but `reads` ones (all alike); undefined when none is. */
  private mode: JobIsolation | undefined;
  /** The lanes of the alone jobs running now; `undefined` counts those without one. */
  private readonly lanes = new Map<string | undefined, number>();
  /** When set, jobs not yet started are not started: they settle with what `refuse` gives. */
  private refusal?: () => Error;

  /** `width`: how many jobs may run at once, asked anew each time a job could start (it follows the client's limit). */
  constructor(private readonly width: () => number) {}

  run<T>(isolation: JobIsolation, job: () => Promise<T>, priority = 0, lane?: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // After the last job of its priority or a lower one: a search from the end, as most jobs come in order.
      let at = this.queue.length;
      while (at > 0 && this.queue[at - 1].priority > priority) at--;
      this.queue.splice(at, 0, {
        isolation,
        lane,
        priority,
        start: () => {
          if (this.refusal) {
            this.finished(isolation, lane);
            reject(this.refusal());
            return;
          }
          job()
            .then(resolve, reject)
            .finally(() => this.finished(isolation, lane));
        },
      });
      this.pump();
    });
  }

  /**
   * A running job waits for work another job does (the corpus they share, being built): meanwhile it holds
   * no place, and a job queued may start in it.
   */
  async meanwhile<T>(work: Promise<T>): Promise<T> {
    this.waitingOnOthers++;
    this.pump();
    try {
      return await work;
    } finally {
      this.waitingOnOthers--;
    }
  }

  /** From now on, every job that has not started settles at once with this error (a spent budget). */
  refuse(error: () => Error): void {
    this.refusal = error;
    this.pump();
  }

  private finished(isolation: JobIsolation, lane: string | undefined): void {
    if (isolation === 'alone') {
      const left = (this.lanes.get(lane) ?? 1) - 1;
      if (left > 0) this.lanes.set(lane, left);
      else this.lanes.delete(lane);
    }
    this.running--;
    if (isolation === 'reads') this.reading--;
    if (this.running === this.reading) this.mode = undefined;
    this.pump();
  }

  private fits(isolation: JobIsolation, lane: string | undefined): boolean {
    if (this.running === 0) return true;
    if (this.running - this.waitingOnOthers >= this.width()) return false;
    if (isolation === 'reads' || this.mode === undefined) return true;
    if (isolation !== this.mode) return false;
    return isolation !== 'alone' || (lane !== undefined && !this.lanes.has(lane) && !this.lanes.has(undefined));
  }

  /** Start what fits now (called on every change: a job submitted or ended, more room in the client). */
  pump(): void {
    while (this.queue.length > 0 && (this.refusal || this.fits(this.queue[0].isolation, this.queue[0].lane))) {
      const next = this.queue.shift()!;
      this.running++;
      if (next.isolation === 'reads') this.reading++;
      else this.mode = next.isolation;
      if (next.isolation === 'alone') this.lanes.set(next.lane, (this.lanes.get(next.lane) ?? 0) + 1);
      next.start();
    }
  }
}

/**
 * Jobs that run alone in a lane, taken in turn from each lane, in the places such jobs held (the others stay
 * where they are): consecutive alone jobs are then of different lanes and start side by side, where a lane's
 * jobs one after another would hold the head of the queue while their lane is busy.
 */
export function inTurnByLane<T>(jobs: readonly T[], laneOf: (job: T) => string | undefined): T[] {
  const laned = jobs.flatMap((job, at) => {
    const lane = laneOf(job);
    return lane === undefined ? [] : [{ job, at, lane }];
  });
  const lanes = new Map<string, T[]>();
  for (const { job, lane } of laned) {
    const queue = lanes.get(lane);
    if (queue) queue.push(job);
    else lanes.set(lane, [job]);
  }
  const inTurn: T[] = [];
  while (inTurn.length < laned.length)
    for (const queue of lanes.values()) if (queue.length > 0) inTurn.push(queue.shift()!);
  const out = [...jobs];
  laned.forEach(({ at }, k) => {
    out[at] = inTurn[k];
  });
  return out;
}
