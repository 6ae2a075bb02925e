/**
 * The time a run may send for, counted from when the suites start (the server is up and its document read):
 * a budget the user asks for (--budget, a short run for pull requests), or else the deadline every run has
 * (--deadline), so that a slow target ends the run in bounded time instead of hanging it. When the time is
 * spent the run stops sending; what it did not reach is reported as not run, never as passed.
 */
import type { WorkerConfig } from '../config/worker.js';
import type { Timing } from '../report/results.js';

/** As results.json carries it: the kind, the seconds, and when it was spent (with the reason every unreached check gives). */
export type TimeBoxInfo = Timing['timeBox'];

export class TimeBox {
  readonly info: TimeBoxInfo;

  constructor(config: Pick<WorkerConfig, 'budgetSeconds' | 'deadlineSeconds'>, onSpent: (reason: string) => void) {
    this.info = config.budgetSeconds
      ? { kind: 'budget', seconds: config.budgetSeconds }
      : { kind: 'deadline', seconds: config.deadlineSeconds };
    const reason =
      this.info.kind === 'budget'
        ? `the budget of ${this.info.seconds} s was spent (--budget)`
        : `the run's deadline of ${this.info.seconds} s was reached (--deadline): the target answered too slowly for the whole run; see the latency per family`;
    // unref: a run that finishes early must not wait for the timer.
    setTimeout(() => {
      this.info.spent = { at: new Date().toISOString(), reason };
      onSpent(reason);
    }, this.info.seconds * 1000).unref();
  }

  /** The time is spent: nothing more is sent. */
  get spent(): boolean {
    return this.info.spent !== undefined;
  }

  get budgeted(): boolean {
    return this.info.kind === 'budget';
  }
}
