/**
 * The headers of an answer held to their meaning: each header an RFC gives a grammar is sent in it (RFC 9110
 * §2.2: a sender MUST NOT generate protocol elements that do not match the grammar), and each header the
 * document declares required for the status is sent, in its schema. Allow is methods.405-allow's.
 */
import { documentsStatus, responseFor, type Operation } from '../../openapi/operations.js';
import type { CheckContext, Exchange } from '../core/context.js';
import { failure, type Failure } from '../core/verdict.js';
import type { ExchangeJudge } from './eachExchange.js';

const DAY = '(Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
/** RFC 9110 §5.6.7: an HTTP-date is an IMF-fixdate, or one of the two obsolete forms a recipient still reads. */
const HTTP_DATE = [
  new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT$`),
  new RegExp(
    `^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \\d{2}-${MONTH}-\\d{2} \\d{2}:\\d{2}:\\d{2} GMT$`,
  ),
  new RegExp(`^${DAY} ${MONTH} ( \\d|\\d{2}) \\d{2}:\\d{2}:\\d{2} \\d{4}$`),
];

/** RFC 9110 §10.2.3: Retry-After = HTTP-date / delay-seconds (1*DIGIT). */
export const isRetryAfter = (value: string): boolean =>
  /^\d+$/.test(value) || HTTP_DATE.some((form) => form.test(value));

/**
 * RFC 9110 §10.2.2: Location = URI-reference, resolved against the request's URI. No space, no control
 * character, and a parse by the WHATWG URL parser against the request's URL (it rejects a broken authority).
 */
export function isUriReference(value: string, base: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters a URI reference may not hold
  if (value === '' || /[\s\x00-\x1f\x7f<>"{}|\\^`]/.test(value)) return false;
  try {
    new URL(value, base);
    return true;
  } catch {
    return false;
  }
}

/** The Retry-After values of the answer and of the attempts before it (a 429 or 503 the client sent again after). */
const retryAfters = (ex: Exchange) =>
  [...(ex.earlierRetryAfter ?? []), ex.responseHeaders['retry-after']].filter((v): v is string => v !== undefined);

function grammarFailure(ex: Exchange): Failure | undefined {
  const badRetry = retryAfters(ex).find((v) => !isRetryAfter(v));
  if (badRetry !== undefined)
    return failure(
      'header.untrue',
      'Retry-After',
      `Retry-After ${JSON.stringify(badRetry)} is neither a number of seconds nor an HTTP-date (RFC 9110 §10.2.3)`,
      [ex],
    );
  const location = ex.responseHeaders.location;
  if (location !== undefined && !isUriReference(location, ex.url))
    return failure(
      'header.untrue',
      'Location',
      `Location ${JSON.stringify(location)} is not a URI reference (RFC 9110 §10.2.2)`,
      [ex],
    );
  return undefined;
}

/** A header the document declares for the answer's status: missing where required, or outside its schema. */
function documentedFailure(op: Operation, ex: Exchange, validate: CheckContext['validate']): Failure | undefined {
  if (ex.status === 0 || !documentsStatus(op, ex.status)) return undefined;
  for (const [name, declared] of Object.entries(responseFor(op, ex.status)?.headers ?? {})) {
    const value = ex.responseHeaders[name];
    if (value === undefined) {
      if (declared.required)
        return failure('header.incomplete', name, `${ex.status} without the ${name} header its document requires`, [
          ex,
        ]);
      continue;
    }
    // A header is text: a number its schema declares is read as one.
    const type = (declared.schema as { type?: unknown } | undefined)?.type;
    const read = (type === 'integer' || type === 'number') && value.trim() !== '' ? Number(value) : value;
    const problem = declared.schema ? validate(declared.schema, read) : undefined;
    if (problem)
      return failure(
        'header.untrue',
        name,
        `${name} ${JSON.stringify(value)} is not what its document declares: ${problem.text}`,
        [ex],
      );
  }
  return undefined;
}

/** The headers of one answer: in their RFC's grammar, and as the document declares them for its status. */
export const judgeHeaders: ExchangeJudge = (op, s, ctx) =>
  grammarFailure(s.exchange) ?? documentedFailure(op, s.exchange, ctx.validate);
