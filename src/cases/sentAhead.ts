/**
 * A property's requests sent ahead, side by side, and judged in the property's own order. fast-check draws a
 * property's values one after another, and a check that sends a request for each pays a round trip per value:
 * behind a distant server, a property of a few hundred filters pays as many round trips. The values a run will draw
 * are known before it runs (`drawsOf`: a check of the same arbitraries, seed, runs and examples draws them),
 * so their requests go at once, the client bounding what is in flight, and the property takes each answer
 * as it reaches that value. Shrinking, after a failure, sends as
 * before. Only for reads: their answers do not depend on the order they are sent in.
 *
 * What a run sends does not change where the property holds. Where it fails, the draws after the failure
 * (which fc.check no longer reaches) were sent too: a few reads more, never another verdict.
 */
import fc from 'fast-check';

export class SentAhead<A> {
  private readonly answers = new Map<string, Promise<A>>();

  /** Each distinct key's request, sent now: the values a property will draw, as key and request (none: it sends nothing). */
  constructor(requests: Iterable<{ key: string; send: () => Promise<A> } | undefined>) {
    for (const request of requests) {
      if (!request || this.answers.has(request.key)) continue;
      const answer = request.send();
      // Its error (the time box's SendingStopped) belongs to the property that takes it, if one does.
      answer.catch(() => undefined);
      this.answers.set(request.key, answer);
    }
  }

  /** The answer sent ahead for `key`, else `send()`'s (a value drawn while shrinking). */
  answer(key: string, send: () => Promise<A>): Promise<A> {
    return this.answers.get(key) ?? send();
  }
}

/**
 * What `fc.check` of a property over these arbitraries, with these parameters, draws before it shrinks: its
 * examples, then its seed's values. Drawn by a check of the same arbitraries that holds for every value: the
 * same run draws the same values whatever the property does with them (fc.sample does not: past a few draws,
 * its values differ from a check's of the same seed).
 */
export function drawsOf<Ts extends [unknown, ...unknown[]]>(
  arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  params: { seed: number; numRuns: number; examples?: Ts[] },
): Ts[] {
  const drawn: Ts[] = [];
  const record = fc.property(...(arbitraries as [fc.Arbitrary<unknown>]), (...values: unknown[]) => {
    drawn.push(values as Ts);
    return true;
  });
  fc.check(record, {
    seed: params.seed,
    numRuns: params.numRuns,
    examples: (params.examples ?? []) as unknown as [unknown][],
  });
  return drawn;
}
