/**
 * Load is not behaviour. The checks that judge a pair or a repeat of requests (a default left out and then
 * stated, a GET with and without a body) hold two answers to each other; a busy or shared server may answer one
 * of them 503, 429 or not at all, or change a field between them. Neither is a difference of the server's
 * behaviour: a pair with a load answer is sent again, or not judged (said so), and a difference counts only when
 * it comes back when the pair is sent again.
 */
import type { Exchange } from './context.js';
import { isLoadAnswer, pass, skip, type Verdict } from './verdict.js';

/** How many times a pair is sent, at most, while one of its answers is a load answer. */
const LOAD_TRIES = 3;

export { isLoadAnswer };

const describe = (ex: Exchange) => (ex.status === 0 ? `no answer (${ex.error ?? 'timeout'})` : String(ex.status));

/**
 * The answers of `send`, sent again (after a pause that grows) while any of them is a load answer; a Skip's
 * reason where every try met one. The client has already sent a 503 again and waited out a 429's Retry-After:
 * what reaches here is load that lasted.
 */
export async function pastLoad<T extends Exchange[]>(
  send: () => Promise<T>,
  what: string,
  pause = (attempt: number) => new Promise((r) => setTimeout(r, 1000 * attempt)),
): Promise<T | string> {
  let answers = await send();
  for (let attempt = 1; attempt < LOAD_TRIES && answers.some(isLoadAnswer); attempt++) {
    await pause(attempt);
    answers = await send();
  }
  const busy = answers.find(isLoadAnswer);
  return busy
    ? `${what}: ${LOAD_TRIES} tries met a busy server (${describe(busy)}): load, not a difference of behaviour; not judged`
    : answers;
}

/**
 * A judgement of a pair that counts a difference only when it comes back: where `judge` fails, it is asked
 * again (its requests sent anew); a difference the second asking does not show is passed with a note, one the
 * second asking cannot tell (a skip) is not judged.
 */
export async function differenceThatReturns(judge: () => Promise<Verdict>): Promise<Verdict> {
  const first = await judge();
  if (first.status !== 'failed') return first;
  const second = await judge();
  if (second.status === 'failed') return first;
  const seen = first.failures[0]?.message ?? 'a difference';
  if (second.status === 'skipped')
    return skip(`${seen}, once; sent again, the pair could not be judged (${second.message}): not judged`);
  return pass(`a difference that did not come back when the pair was sent again: ${seen}`);
}
