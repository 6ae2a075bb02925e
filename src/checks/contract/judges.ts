/** The judges of the `contract` checks, one exchange at a time (contract/eachExchange.ts), and the property's judge of a generated valid body. */
import { documentsStatus, isJsonMediaType, responseFor, type Operation } from '../../openapi/operations.js';
import { is2xx, isServerError } from '../../openapi/request.js';
import type { CheckContext, Exchange, Sent } from '../core/context.js';
import { failure, statusKey, statusText, type Failure } from '../core/verdict.js';
import { causeOf, type ExchangeJudge, inputClass, stayedBusy, unavailableThenDropped } from './eachExchange.js';

const documentedContent = (op: Operation, status: number) =>
  documentsStatus(op, status) ? responseFor(op, status) : undefined;

function schemaFailure(
  op: Operation,
  ex: Exchange,
  validate: CheckContext['validate'],
  wanted: (status: number) => boolean,
): Failure | undefined {
  if (ex.status === 0 || !wanted(ex.status)) return undefined;
  const response = documentedContent(op, ex.status);
  const ct = response && Object.keys(response.content).find(isJsonMediaType);
  const schema = ct ? response.content[ct] : undefined;
  // Unparsable JSON is contract.content-type's to report.
  if (!schema || !isJsonMediaType(ex.contentType) || ex.parseError) return undefined;
  const problem = validate(schema, ex.json);
  if (!problem) return undefined;
  return failure(
    'schema.mismatch',
    `${ex.status} ${problem.path} ${problem.keyword}`,
    `${ex.status} body does not match the documented schema: ${problem.text}`,
    [ex],
    {
      status: ex.status,
      path: problem.path,
      keyword: problem.keyword,
    },
  );
}

export const judgeNo5xx: ExchangeJudge = (_op, s) => {
  const ex = s.exchange;
  // stayedBusy covers a 503 then a dropped connection too: contract.available's.
  if (ex.status === 0 && !stayedBusy(s)) return failure('no-answer', inputClass(s), `no answer: ${ex.error}`, [ex]);
  if (isServerError(ex))
    return failure(
      'server-error',
      `${ex.status} ${causeOf(s)}`,
      `answered ${ex.status}: ${ex.body.slice(0, 200)}`,
      [ex],
      { status: ex.status, input: inputClass(s), ...(s.fields ? { fields: s.fields } : {}) },
    );
  return undefined;
};

/**
 * A read back of what an extreme value made or changed (engine/exercise.ts readBack) that the server cannot
 * serve: a 5xx, 503 included (a stored value that breaks every list of its collection). The accepting
 * request's finding, keyed by its input class and fields.
 */
export const judgeReadBack: ExchangeJudge = (_op, s) => {
  const ex = s.exchange;
  if (ex.status < 500 && ex.status !== 0) return undefined;
  return failure(
    'server-error',
    `${ex.status} read-back ${causeOf({ ...s, kind: 'extreme' })}`,
    `${s.detail ?? 'a read back'}: ${ex.method} ${ex.template} answered ${ex.status || ex.error}: ${ex.body.slice(0, 200)}`,
    [ex],
    { status: ex.status, input: s.edge, ...(s.fields ? { fields: s.fields } : {}) },
  );
};

/** A request the server stayed unavailable for (503 through the retries, or 503 then dropped). */
export const judgeAvailable: ExchangeJudge = (_op, s) => {
  const ex = s.exchange;
  if (ex.status === 503)
    return failure(
      'unavailable',
      inputClass(s),
      `answered 503 ${ex.attempts} times${s.busyFirst ? `, and again after a pause (${s.busyFirst.attempts} times before)` : ''}: ${ex.body.slice(0, 200)}`,
      s.busyFirst ? [s.busyFirst, ex] : [ex],
    );
  if (unavailableThenDropped(ex))
    return failure(
      'unavailable',
      inputClass(s),
      `answered ${ex.earlier!.join(', ')}, then dropped the connection (${ex.error})`,
      [ex],
    );
  if (stayedBusy(s))
    return failure(
      'unavailable',
      inputClass(s),
      `no answer in time (${ex.error}), again after a pause, and none to the valid request beside it either`,
      s.busyFirst ? [s.busyFirst, ex] : [ex],
    );
  return undefined;
};

/** A success answered with a status the operation does not document. */
export const judgeSuccessStatusDocumented: ExchangeJudge = (op, { exchange: ex }) =>
  is2xx(ex) && !documentsStatus(op, ex.status)
    ? failure(
        'status.undocumented',
        ex.status,
        `answered ${ex.status}; the document lists ${Object.keys(op.responses).join(', ')}`,
        [ex],
        {
          status: ex.status,
          documented: Object.keys(op.responses),
        },
      )
    : undefined;

/** An answer whose content type is not the documented one: JSON that is not, or does not parse; a body where none is documented. */
export const judgeContentType: ExchangeJudge = (op, { exchange: ex }) => {
  const response = ex.status === 0 ? undefined : documentedContent(op, ex.status);
  if (!response) return undefined;
  const types = Object.keys(response.content);
  if (types.length === 0)
    return ex.bodyBytes > 0
      ? failure(
          'content-type.mismatch',
          `${ex.status} ${ex.contentType || 'none'}`,
          `${ex.status} is documented without a body, but ${ex.bodyBytes} bytes came`,
          [ex],
        )
      : undefined;
  if (!types.some(isJsonMediaType)) return undefined;
  if (!isJsonMediaType(ex.contentType))
    return failure(
      'content-type.mismatch',
      `${ex.status} ${ex.contentType || 'none'}`,
      `${ex.status} is documented as JSON, but came as "${ex.contentType || 'no content type'}"`,
      [ex],
      {
        status: ex.status,
        contentType: ex.contentType,
      },
    );
  if (ex.parseError)
    return failure('json.unparsable', ex.status, `${ex.status} declared JSON does not parse: ${ex.parseError}`, [ex]);
  return undefined;
};

/** A success whose body does not match its documented schema. */
export const judgeSuccessSchema: ExchangeJudge = (op, s, ctx) =>
  schemaFailure(op, s.exchange, ctx.validate, (st) => st >= 200 && st < 300);

/** A documented error status whose body does not match its documented schema. */
export const judgeErrorSchema: ExchangeJudge = (op, s, ctx) =>
  schemaFailure(op, s.exchange, ctx.validate, (st) => st >= 400 && st < 500);

export const judgeValidInputAccepted: ExchangeJudge = (op, s) => {
  const ex = s.exchange;
  if (ex.status === 0 || ex.status >= 500 || is2xx(ex)) return undefined;
  if (ex.status >= 400 && ex.status < 500 && (documentsStatus(op, ex.status) || ex.status === 404 || ex.status === 409))
    return undefined;
  return failure('input.refused', ex.status, `valid input answered ${ex.status}: ${ex.body.slice(0, 200)}`, [ex], {
    status: ex.status,
  });
};

/** An invalid body (of the kind the check sends) answered other than with a 4xx. */
export const judgeInvalidRefused: ExchangeJudge = (_op, s) =>
  s.exchange.status >= 400 && s.exchange.status < 500
    ? undefined
    : failure(
        'input.accepted',
        // An invalid edge names its label: a null taken as absent is not a bound ignored.
        s.edge ? `${statusKey(s.exchange)} ${s.edge}` : statusKey(s.exchange),
        `${s.detail} answered ${statusText(s.exchange)}`,
        [s.exchange],
        { status: s.exchange.status, detail: s.detail },
      );

/** An identifier that names no object answered other than 404. */
export const judgeUnknownId404: ExchangeJudge = (_op, { exchange: ex }) =>
  ex.status === 404
    ? undefined
    : failure(
        'status.unexpected',
        statusKey(ex),
        `an unknown identifier answered ${statusText(ex)}: ${ex.body.slice(0, 200)}`,
        [ex],
        { status: ex.status },
      );

/** The minimal valid request on the run's own objects answered other than 2xx. */
export const judgeReaches2xx: ExchangeJudge = (_op, { exchange: ex }) =>
  is2xx(ex)
    ? undefined
    : failure(
        'status.unexpected',
        statusKey(ex),
        `the minimal valid request answered ${statusText(ex)}: ${ex.body.slice(0, 300)}`,
        [ex],
        { status: ex.status },
      );

/** Judge one generated valid exchange, for the property, so that its failures shrink to a minimal body. */
export function problemWithValidExchange(
  validate: CheckContext['validate'],
  op: Operation,
  exchange: Exchange,
): string | undefined {
  const sent: Sent = { kind: 'generated', exchange };
  const found = judgeNo5xx(op, sent, { validate }) ?? judgeValidInputAccepted(op, sent, { validate });
  return found && `${found.kind} ${found.key}: ${found.message}`;
}
