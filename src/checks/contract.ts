/**
 * Family `contract`: what the target's own document promises about every operation. Each check judges the
 * exchanges of the kinds it looks at, one at a time; it holds for an operation when every one passes, and
 * each distinct (kind, key) of failure is reported once.
 */
import type { NegativeKind } from '../cases/negative.js';
import type { Exchange } from './context.js';
import { documentsStatus, isJsonMediaType, responseFor, type Operation } from '../openapi/operations.js';
import { is2xx } from '../openapi/request.js';
import { defineCheck } from './check.js';
import type { CheckContext, ExchangeKind, Sent } from './context.js';
import { failAll, failure, pass, skip, statusKey, statusText, type Failure, type Verdict } from './verdict.js';

/** What is wrong with one exchange, or undefined. */
type ExchangeJudge = (op: Operation, sent: Sent, ctx: Pick<CheckContext, 'validate'>) => Failure | undefined;

const DOCUMENT = 'OpenAPI document';

const ofKinds =
  (...k: ExchangeKind[]) =>
  (s: Sent) =>
    k.includes(s.kind);
const negative = (kind: NegativeKind) => (s: Sent) => s.kind === 'negative' && s.negative === kind;
const every = () => true;

/**
 * The class of input an exchange sent, as a failure key: `recipe`, `generated`, `negative:wrong-type`, `unknown`.
 * An edge is a generated valid body whose value was chosen rather than drawn: the same class, so that a cause
 * an edge meets and a random body meets is one key.
 */
export const inputClass = (s: Sent): string =>
  s.kind === 'negative' ? `negative:${s.negative}` : s.kind === 'edge' ? 'generated' : s.kind;

/**
 * The cause of a server error as a failure key: the input class and, for a generated body, the fields the
 * cause lies in (`500 generated {work_pool_name}`), so that a known crash excuses only itself. A generated
 * body whose cause lies in none of its fields (`500 generated {}`: it shrank to the valid request's own body,
 * which the server took before) failed for the state earlier requests left, not for itself. A body never
 * traced to its fields keeps the bare class.
 */
const causeOf = (s: Sent): string =>
  inputClass(s) === 'generated' && s.fields ? `${inputClass(s)} {${s.fields.join(',')}}` : inputClass(s);

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

/** The server said 503 to this request, then dropped the connection on a retry: unavailable, not broken. */
const unavailableThenDropped = (ex: Exchange) => ex.status === 0 && (ex.earlier ?? []).includes(503);
const stayedUnavailable = (ex: Exchange) => ex.status === 503 || unavailableThenDropped(ex);

interface JudgeOptions {
  /** Which exchanges the check looks at. */
  looksAt: (sent: Sent) => boolean;
  /** Judge exchanges the server stayed unavailable for too (only the checks about availability do). */
  judgesUnavailable?: boolean;
  /** The check asks for 2xx, which the profile says this operation cannot reach on this target. */
  asks2xx?: boolean;
}

/**
 * The rule of a contract check: its judge over every exchange of the kinds it looks at. It applies to an
 * operation the run sent such exchanges for (an operation without a body has no invalid-body case), or
 * could not exercise (then it is skipped, with the reason).
 */
function eachExchange(judge: ExchangeJudge, { looksAt, judgesUnavailable = false, asks2xx = false }: JudgeOptions) {
  const appliesTo = (op: Operation, ctx: CheckContext): boolean => {
    const run = ctx.exchangesOf(op);
    return run.skipped !== undefined || run.sent.some(looksAt);
  };
  const judgeOperation = (op: Operation, ctx: CheckContext): Verdict => {
    const run = ctx.exchangesOf(op);
    if (run.skipped) return skip(run.skipped);
    const ofThisKind = run.sent.filter(looksAt);
    if (ofThisKind.length === 0) return skip('no exchange of this kind for the operation');
    // A request that stayed 503 through the retries says nothing about statuses or schemas: contract.available reports it.
    const relevant = judgesUnavailable ? ofThisKind : ofThisKind.filter((s) => !stayedUnavailable(s.exchange));
    if (relevant.length === 0)
      return skip(
        `the server stayed unavailable (503) for all ${ofThisKind.length} exchange(s) of this kind; contract.available reports it`,
      );
    if (asks2xx && run.unreachable)
      return relevant.every((s) => is2xx(s.exchange)) ? pass() : skip(`cannot reach 2xx here: ${run.unreachable}`);
    const found: Array<{ sent: Sent; failure: Failure }> = [];
    for (const sent of relevant) {
      const f = judge(op, sent, ctx);
      if (f) found.push({ sent, failure: f });
    }
    if (found.length === 0) return pass(`${relevant.length} exchange(s) checked`);
    // The shrunk counterexample is the last generated failure: show it first. Each (kind, key) once, with its first exchanges.
    const ordered = [found[found.length - 1], ...found.slice(0, -1)];
    const distinct = new Map<string, Failure>();
    for (const { sent, failure: f } of ordered) {
      const seen = distinct.get(`${f.kind} ${f.key}`);
      if (!seen) distinct.set(`${f.kind} ${f.key}`, f);
      else if (seen.evidence.length < 2) seen.evidence.push(...f.evidence.slice(0, 1));
      // Which replays showed each failure: two entries of one key are two causes, each with its own replay.
      const shown = seen ?? f;
      if (sent.replay && !shown.replays?.includes(sent.replay)) shown.replays = [...(shown.replays ?? []), sent.replay];
    }
    const generation = found.some((f) => f.sent.kind === 'generated') ? run.generation : undefined;
    const replaysJudged = [...new Set(relevant.flatMap((s) => (s.replay ? [s.replay] : [])))];
    return failAll([...distinct.values()], {
      among: `${found.length} of ${relevant.length} exchange(s)`,
      ...(generation ? { seed: generation.seed, path: generation.path } : {}),
      ...(replaysJudged.length ? { replaysJudged } : {}),
    });
  };
  return { appliesTo, run: judgeOperation, reads: 'exercise' as const };
}

export const judgeNo5xx: ExchangeJudge = (_op, s) => {
  const ex = s.exchange;
  if (ex.status === 0 && !unavailableThenDropped(ex))
    return failure('no-answer', inputClass(s), `no answer: ${ex.error}`, [ex]);
  if (ex.status >= 500 && ex.status !== 503)
    return failure(
      'server-error',
      `${ex.status} ${causeOf(s)}`,
      `answered ${ex.status}: ${ex.body.slice(0, 200)}`,
      [ex],
      { status: ex.status, input: inputClass(s), ...(s.fields ? { fields: s.fields } : {}) },
    );
  return undefined;
};

export const judgeValidInputAccepted: ExchangeJudge = (op, s) => {
  const ex = s.exchange;
  if (ex.status === 0 || ex.status >= 500 || is2xx(ex)) return undefined;
  if (ex.status >= 400 && ex.status < 500 && (documentsStatus(op, ex.status) || ex.status === 404 || ex.status === 409))
    return undefined;
  return failure('input.refused', ex.status, `valid input answered ${ex.status}: ${ex.body.slice(0, 200)}`, [ex], {
    status: ex.status,
  });
};

function invalidInputCheck(kind: NegativeKind, title: `MUST ${string}`, catches?: number) {
  return defineCheck({
    id: `contract.invalid-${kind}`,
    level: 'MUST',
    clause: DOCUMENT,
    catches,
    title,
    ...eachExchange(
      (_op, s) =>
        s.exchange.status >= 400 && s.exchange.status < 500
          ? undefined
          : failure(
              'input.accepted',
              statusKey(s.exchange),
              `${s.detail} answered ${statusText(s.exchange)}`,
              [s.exchange],
              { status: s.exchange.status, detail: s.detail },
            ),
      { looksAt: negative(kind) },
    ),
  });
}

export const contractChecks = [
  defineCheck({
    id: 'contract.no-5xx',
    level: 'MUST',
    clause: '4.1; OpenAPI document',
    catches: 7,
    title: 'MUST answer every request, valid or not, without a server error or a broken connection',
    ...eachExchange(judgeNo5xx, { looksAt: every, judgesUnavailable: true }),
  }),
  // 503 is the server saying "not now" (Prefect: a retryable database error); the client retried it with
  // backoff. Still unavailable after that is worth knowing, but is load, not a broken contract.
  defineCheck({
    id: 'contract.available',
    level: 'SHOULD',
    clause:
      'open: a 503 is a server saying "not now", which no source forbids, and one that outlasts the retries is load: reported, not gated; 4.1',
    catches: 1,
    title: 'SHOULD not stay unavailable (503) through bounded retries',
    ...eachExchange(
      (_op, s) => {
        const ex = s.exchange;
        if (ex.status === 503)
          return failure('unavailable', inputClass(s), `answered 503 ${ex.attempts} times: ${ex.body.slice(0, 200)}`, [
            ex,
          ]);
        if (unavailableThenDropped(ex))
          return failure(
            'unavailable',
            inputClass(s),
            `answered ${ex.earlier!.join(', ')}, then dropped the connection (${ex.error})`,
            [ex],
          );
        return undefined;
      },
      { looksAt: every, judgesUnavailable: true },
    ),
  }),
  defineCheck({
    id: 'contract.success-status-documented',
    level: 'MUST',
    clause: DOCUMENT,
    catches: 2,
    title: 'MUST answer success with a status code the operation documents',
    ...eachExchange(
      (op, { exchange: ex }) =>
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
          : undefined,
      { looksAt: every },
    ),
  }),
  defineCheck({
    id: 'contract.content-type',
    level: 'MUST',
    clause: DOCUMENT,
    catches: 2,
    title:
      'MUST answer with the documented content type: parsable JSON where JSON is documented, no body where none is',
    ...eachExchange(
      (op, { exchange: ex }) => {
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
          return failure('json.unparsable', ex.status, `${ex.status} declared JSON does not parse: ${ex.parseError}`, [
            ex,
          ]);
        return undefined;
      },
      { looksAt: every },
    ),
  }),
  defineCheck({
    id: 'contract.success-schema',
    level: 'MUST',
    clause: DOCUMENT,
    catches: 2,
    title: 'MUST answer success with a body that matches the documented response schema',
    ...eachExchange((op, s, ctx) => schemaFailure(op, s.exchange, ctx.validate, (st) => st >= 200 && st < 300), {
      looksAt: every,
    }),
  }),
  defineCheck({
    id: 'contract.error-schema',
    level: 'MUST',
    clause: DOCUMENT,
    catches: 1,
    title: 'MUST answer a documented error status with a body that matches its documented schema',
    ...eachExchange((op, s, ctx) => schemaFailure(op, s.exchange, ctx.validate, (st) => st >= 400 && st < 500), {
      looksAt: every,
    }),
  }),
  defineCheck({
    id: 'contract.valid-input-accepted',
    level: 'MUST',
    clause: DOCUMENT,
    title: 'MUST accept valid input, or refuse it with a documented 4xx, 404 or 409',
    ...eachExchange(judgeValidInputAccepted, { looksAt: ofKinds('recipe', 'generated', 'edge'), asks2xx: true }),
  }),
  invalidInputCheck('malformed-json', 'MUST refuse a malformed JSON body with a 4xx', 1),
  invalidInputCheck('wrong-type', 'MUST refuse a body with a value of the wrong type with a 4xx', 1),
  invalidInputCheck('missing-required', 'MUST refuse a body without a required property with a 4xx', 1),
  invalidInputCheck('extra-property', 'MUST refuse an undeclared property where the schema forbids one with a 4xx'),
  invalidInputCheck('out-of-range', 'MUST refuse a value outside its documented bounds with a 4xx'),
  defineCheck({
    id: 'contract.unknown-id-404',
    level: 'MUST',
    clause: '4.1',
    catches: 3,
    title: 'MUST answer 404 for an identifier that names no object',
    ...eachExchange(
      (_op, { exchange: ex }) =>
        ex.status === 404
          ? undefined
          : failure(
              'status.unexpected',
              statusKey(ex),
              `an unknown identifier answered ${statusText(ex)}: ${ex.body.slice(0, 200)}`,
              [ex],
              { status: ex.status },
            ),
      { looksAt: ofKinds('unknown') },
    ),
  }),
  defineCheck({
    id: 'contract.reaches-2xx',
    level: 'SHOULD',
    clause:
      'open: the document lets a valid request meet a documented 4xx (a conflict, a state that refuses it), so a request that never succeeds is reported, not gated; 4.2',
    title: "SHOULD succeed for a minimal valid request on the run's own objects",
    ...eachExchange(
      (_op, { exchange: ex }) =>
        is2xx(ex)
          ? undefined
          : failure(
              'status.unexpected',
              statusKey(ex),
              `the minimal valid request answered ${statusText(ex)}: ${ex.body.slice(0, 300)}`,
              [ex],
              { status: ex.status },
            ),
      { looksAt: ofKinds('recipe'), asks2xx: true },
    ),
  }),
];

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
