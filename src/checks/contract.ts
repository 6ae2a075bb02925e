/**
 * Family `contract`: what the target's own document promises about every operation. Each rule judges one
 * exchange; a check holds for an operation when every exchange of the kinds it looks at passes.
 */
import type { NegativeKind } from '../cases/negative.js';
import type { Exchange } from '../http/client.js';
import type { ExchangeKind, OperationRun, Sent } from '../run/exercise.js';
import { documentsStatus, responseFor, type Operation } from '../spec/operations.js';
import type { SchemaValidators } from '../spec/validators.js';
import { fail, pass, skip, type Check, type Level, type Verdict } from './types.js';

export interface ContractContext {
  validators: SchemaValidators;
  runOf(op: Operation): OperationRun;
}

interface ExchangeRule {
  id: string;
  level: Level;
  clause: string;
  title: string;
  /** Which exchanges the rule looks at. */
  looksAt(sent: Sent): boolean;
  /** undefined when the exchange is fine, else what is wrong with it. */
  judge(op: Operation, exchange: Exchange, ctx: Pick<ContractContext, 'validators'>, sent: Sent): string | undefined;
}

const isJson = (ct: string) => /^application\/([\w.+-]+\+)?json\b/i.test(ct.trim());
const kinds = (...k: ExchangeKind[]) => (s: Sent) => k.includes(s.kind);
const negative = (kind: NegativeKind) => (s: Sent) => s.kind === 'negative' && s.negative === kind;
const all = () => true;

function statusLine(ex: Exchange): string {
  return ex.status === 0 ? `no answer (${ex.error})` : `${ex.status}`;
}

function documentedContent(op: Operation, status: number) {
  return documentsStatus(op, status) ? responseFor(op, status) : undefined;
}

function schemaProblem(op: Operation, ex: Exchange, ctx: Pick<ContractContext, 'validators'>, wanted: (status: number) => boolean): string | undefined {
  if (ex.status === 0 || !wanted(ex.status)) return undefined;
  const response = documentedContent(op, ex.status);
  if (!response) return undefined;
  const ct = Object.keys(response.content).find(isJson);
  const schema = ct ? response.content[ct] : undefined;
  if (!schema || !isJson(ex.contentType)) return undefined;
  if (ex.parseError) return undefined; // the content-type rule reports unparsable JSON
  const problem = ctx.validators.validate(schema, ex.json);
  return problem ? `${ex.status} body does not match the documented schema: ${problem}` : undefined;
}

const DOCUMENT = 'OpenAPI document';

/** The server said 503 to this request, then dropped the connection on a retry: unavailable, not broken. */
function unavailableThenDropped(ex: Exchange): boolean {
  return ex.status === 0 && (ex.earlier ?? []).includes(503);
}

function stayedUnavailable(ex: Exchange): boolean {
  return ex.status === 503 || unavailableThenDropped(ex);
}

/** The rules that judge an exchange the server answered "not now" to; the others have nothing to judge in it. */
const JUDGE_UNAVAILABLE = new Set(['contract.no-5xx', 'contract.available']);

export const contractRules: ExchangeRule[] = [
  {
    id: 'contract.no-5xx',
    level: 'MUST',
    clause: '4.1; OpenAPI document',
    title: 'MUST answer every request, valid or not, without a server error or a broken connection',
    looksAt: all,
    judge: (_op, ex) =>
      ex.status === 0 && !unavailableThenDropped(ex) ? `no answer: ${ex.error}` : ex.status >= 500 && ex.status !== 503 ? `answered ${ex.status}: ${ex.body.slice(0, 200)}` : undefined,
  },
  {
    // 503 is the server saying "not now" (Prefect: a retryable database error); the client retried it with
    // backoff. Still unavailable after that is worth knowing, but is load, not a broken contract.
    id: 'contract.available',
    level: 'SHOULD',
    clause: '4.1',
    title: 'SHOULD not stay unavailable (503) through bounded retries',
    looksAt: all,
    judge: (_op, ex) =>
      ex.status === 503 ? `answered 503 ${ex.attempts} times: ${ex.body.slice(0, 200)}` : unavailableThenDropped(ex) ? `answered ${ex.earlier!.join(', ')}, then dropped the connection (${ex.error})` : undefined,
  },
  {
    id: 'contract.success-status-documented',
    level: 'MUST',
    clause: DOCUMENT,
    title: 'MUST answer success with a status code the operation documents',
    looksAt: all,
    judge: (op, ex) =>
      ex.status >= 200 && ex.status < 300 && !documentsStatus(op, ex.status)
        ? `answered ${ex.status}; the document lists ${Object.keys(op.responses).join(', ')}`
        : undefined,
  },
  {
    id: 'contract.content-type',
    level: 'MUST',
    clause: DOCUMENT,
    title: 'MUST answer with the documented content type: parsable JSON where JSON is documented, no body where none is',
    looksAt: all,
    judge: (op, ex) => {
      if (ex.status === 0) return undefined;
      const response = documentedContent(op, ex.status);
      if (!response) return undefined;
      const types = Object.keys(response.content);
      if (types.length === 0) return ex.bodyBytes > 0 ? `${ex.status} is documented without a body, but ${ex.bodyBytes} bytes came` : undefined;
      if (types.some(isJson)) {
        if (!isJson(ex.contentType)) return `${ex.status} is documented as JSON, but came as "${ex.contentType || 'no content type'}"`;
        if (ex.parseError) return `${ex.status} declared JSON does not parse: ${ex.parseError}`;
      }
      return undefined;
    },
  },
  {
    id: 'contract.success-schema',
    level: 'MUST',
    clause: DOCUMENT,
    title: 'MUST answer success with a body that matches the documented response schema',
    looksAt: all,
    judge: (op, ex, ctx) => schemaProblem(op, ex, ctx, (s) => s >= 200 && s < 300),
  },
  {
    id: 'contract.error-schema',
    level: 'MUST',
    clause: DOCUMENT,
    title: 'MUST answer a documented error status with a body that matches its documented schema',
    looksAt: all,
    judge: (op, ex, ctx) => schemaProblem(op, ex, ctx, (s) => s >= 400 && s < 500),
  },
  {
    id: 'contract.valid-input-accepted',
    level: 'MUST',
    clause: DOCUMENT,
    title: 'MUST accept valid input, or refuse it with a documented 4xx, 404 or 409',
    looksAt: kinds('recipe', 'generated'),
    judge: (op, ex) => {
      if (ex.status === 0 || ex.status >= 500 || (ex.status >= 200 && ex.status < 300)) return undefined;
      if (ex.status >= 400 && ex.status < 500 && (documentsStatus(op, ex.status) || ex.status === 404 || ex.status === 409)) return undefined;
      return `valid input answered ${ex.status}: ${ex.body.slice(0, 200)}`;
    },
  },
  ...(
    [
      ['malformed-json', 'MUST refuse a malformed JSON body with a 4xx'],
      ['wrong-type', 'MUST refuse a body with a value of the wrong type with a 4xx'],
      ['missing-required', 'MUST refuse a body without a required property with a 4xx'],
      ['extra-property', 'MUST refuse an undeclared property where the schema forbids one with a 4xx'],
      ['out-of-range', 'MUST refuse a value outside its documented bounds with a 4xx'],
    ] as Array<[NegativeKind, string]>
  ).map(
    ([kind, title]): ExchangeRule => ({
      id: `contract.invalid-${kind}`,
      level: 'MUST',
      clause: DOCUMENT,
      title,
      looksAt: negative(kind),
      judge: (_op, ex, _ctx, sent) => (ex.status >= 400 && ex.status < 500 ? undefined : `${sent.detail} answered ${statusLine(ex)}`),
    }),
  ),
  {
    id: 'contract.unknown-id-404',
    level: 'MUST',
    clause: '4.1',
    title: 'MUST answer 404 for an identifier that names no object',
    looksAt: kinds('unknown'),
    judge: (_op, ex) => (ex.status === 404 ? undefined : `an unknown identifier answered ${statusLine(ex)}: ${ex.body.slice(0, 200)}`),
  },
  {
    id: 'contract.reaches-2xx',
    level: 'SHOULD',
    clause: '4.2',
    title: 'SHOULD succeed for a minimal valid request on the run\'s own objects',
    looksAt: kinds('recipe'),
    judge: (_op, ex) => (ex.status >= 200 && ex.status < 300 ? undefined : `the minimal valid request answered ${statusLine(ex)}: ${ex.body.slice(0, 300)}`),
  },
];

/** The rules a generated body shrinks on: a server error, or valid input refused. */
const SHRINK_ON = new Set(['contract.no-5xx', 'contract.valid-input-accepted']);

/** Judge one generated valid exchange, for the property (so that its failures shrink to a minimal body). */
export function problemWithValidExchange(validators: SchemaValidators, op: Operation, ex: Exchange): string | undefined {
  const sent: Sent = { kind: 'generated', exchange: ex };
  for (const rule of contractRules) {
    if (!SHRINK_ON.has(rule.id) || !rule.looksAt(sent)) continue;
    const problem = rule.judge(op, ex, { validators }, sent);
    if (problem) return `${rule.id}: ${problem}`;
  }
  return undefined;
}

function verdictOf(rule: ExchangeRule, op: Operation, ctx: ContractContext): Verdict {
  const run = ctx.runOf(op);
  if (run.skipped) return skip(run.skipped);
  const ofThisKind = run.sent.filter((s) => rule.looksAt(s));
  if (ofThisKind.length === 0) return skip('no exchange of this kind for the operation');
  // A request that stayed 503 through the retries says nothing about status codes or schemas; contract.available reports it.
  const relevant = JUDGE_UNAVAILABLE.has(rule.id) ? ofThisKind : ofThisKind.filter((s) => !stayedUnavailable(s.exchange));
  if (relevant.length === 0) return skip(`the server stayed unavailable (503) for all ${ofThisKind.length} exchange(s) of this kind; contract.available reports it`);
  if ((rule.id === 'contract.reaches-2xx' || rule.id === 'contract.valid-input-accepted') && run.unreachable) {
    const ok = relevant.every((s) => s.exchange.status >= 200 && s.exchange.status < 300);
    return ok ? pass() : skip(`cannot reach 2xx here: ${run.unreachable}`);
  }
  const failures: Array<{ sent: Sent; problem: string }> = [];
  for (const s of relevant) {
    const problem = rule.judge(op, s.exchange, ctx, s);
    if (problem) failures.push({ sent: s, problem });
  }
  if (failures.length === 0) return pass(`${relevant.length} exchange(s) checked`);
  // The shrunk counterexample is the last generated failure: show it first.
  const last = failures[failures.length - 1];
  const fromGeneration = failures.some((f) => f.sent.kind === 'generated') && run.generation;
  const shown = [last, ...failures.slice(0, 2).filter((f) => f !== last)];
  return fail(
    `${failures.length} of ${relevant.length} exchange(s): ${last.problem}`,
    shown.map((f) => f.sent.exchange),
    fromGeneration ? { seed: run.generation!.seed, path: run.generation!.path } : {},
  );
}

export const contractChecks: Array<Check<ContractContext>> = contractRules.map((rule) => ({
  id: rule.id,
  family: 'contract',
  level: rule.level,
  clause: rule.clause,
  title: rule.title,
  appliesTo: () => true,
  run: (op, ctx) => verdictOf(rule, op, ctx),
}));
