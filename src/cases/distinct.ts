/**
 * A generated input judged once: fast-check draws the same value more than once where a schema leaves
 * little to choose (an empty object, one enum value), and shrinking walks back to values already tried.
 * Sending such a request again changes no verdict (issue 14, item 3), so the first outcome is reused.
 */
export class JudgedOnce<R> {
  private readonly outcomes = new Map<string, R>();
  /** Inputs answered from an earlier outcome, without sending. */
  repeats = 0;

  /** The outcome for `key`: the one judged before, else `judge()`'s (remembered once it settles). */
  async outcome(key: string, judge: () => Promise<R>): Promise<R> {
    if (this.outcomes.has(key)) {
      this.repeats++;
      return this.outcomes.get(key) as R;
    }
    const r = await judge();
    this.outcomes.set(key, r);
    return r;
  }
}
