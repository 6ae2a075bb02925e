/**
 * Jobs of a run (judgements, and the exercise of operations they read) started in the order they are
 * submitted, a bounded number at a time, so that the server always has work while no check sees another's
 * writes where that would change its verdict. A job's isolation (checks/check.ts) decides what may run
 * beside it: `shared` jobs beside shared ones, `quiet` beside quiet ones, `alone` beside nothing. The head
 * of the queue waits until it fits, and nothing overtakes it: the start order is the submission order,
 * whatever the order of answers. A job may carry a priority (lower first; a budgeted run's plan): it then
 * queues before every job of a higher number, and in submission order among its equals.
 */
import type { Isolation } from '../checks/check.js';

export type JobIsolation = Isolation | 'shared';

interface Waiting {
  isolation: JobIsolation;
  priority: number;
  start: () => void;
}

export class Scheduler {
  private readonly queue: Waiting[] = [];
  private running = 0;
  /** Running jobs that wait for another's work (`meanwhile`): they hold no place in the width. */
  private waitingOnOthers = 0;
  /** The isolation of the jobs running now (all alike); undefined when none is. */
  private mode: JobIsolation | undefined;
  /** When set, jobs not yet started are not started: they settle with what `refuse` gives. */
  private refusal?: () => Error;

  /** `width`: how many jobs may run at once, asked anew each time a job could start (it follows the client's limit). */
  constructor(private readonly width: () => number) {}

  run<T>(isolation: JobIsolation, job: () => Promise<T>, priority = 0): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // After the last job of its priority or a lower one: a search from the end, as most jobs come in order.
      let at = this.queue.length;
      while (at > 0 && this.queue[at - 1].priority > priority) at--;
      this.queue.splice(at, 0, {
        isolation,
        priority,
        start: () => {
          if (this.refusal) {
            this.finished();
            reject(this.refusal());
            return;
          }
          job()
            .then(resolve, reject)
            .finally(() => this.finished());
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

  private finished(): void {
    this.running--;
    if (this.running === 0) this.mode = undefined;
    this.pump();
  }

  private fits(isolation: JobIsolation): boolean {
    if (this.running === 0) return true;
    return isolation !== 'alone' && isolation === this.mode && this.running - this.waitingOnOthers < this.width();
  }

  /** Start what fits now (called on every change: a job submitted or ended, more room in the client). */
  pump(): void {
    while (this.queue.length > 0 && (this.refusal || this.fits(this.queue[0].isolation))) {
      const next = this.queue.shift()!;
      this.running++;
      this.mode = next.isolation;
      next.start();
    }
  }
}
