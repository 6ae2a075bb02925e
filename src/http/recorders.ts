/**
 * What the client hands each exchange to once it is complete (after its retries): recorders it is given, each
 * with one job. The masked log of behaviour (`compare`'s, config/exchangeLog.ts) and the HAR entries of
 * `--report har` are two; every exchange a recorder sees is already redacted (client.ts `sendOnce`).
 */
import { appendFileSync } from 'node:fs';
import type { RequestToSend } from '../openapi/request.js';
import { behaviourOf } from './behaviour.js';
import type { Exchange } from './exchange.js';

/** Who sent an exchange, and when it was answered (ms since the client was made). */
export interface SentBy {
  label: string;
  operation?: string;
  at: number;
}

export interface ExchangeRecorder {
  record(exchange: Exchange, request: RequestToSend, sentBy: SentBy): void;
}

/**
 * One line per exchange in the run's exchange log: its masked behaviour (http/behaviour.ts), for `compare`,
 * and when and by whom it was sent, for the benchmark's timeline. `basePathLength`: the API root's path,
 * left out of each request's path.
 */
export function exchangeLogRecorder(file: string, basePathLength: number, runTag?: string): ExchangeRecorder {
  return {
    record(exchange, request, sentBy) {
      const url = new URL(exchange.url);
      // A request sent without the run's credentials (or with wrong ones) is another request than the same
      // one with them: `compare` pairs requests by this text.
      const credentials = request.withoutAuth
        ? request.headers?.authorization
          ? ' [wrong credentials]'
          : ' [no credentials]'
        : '';
      // Which of two racing requests wins is chance: `compare` leaves them out, and they are keyed apart.
      const racing = request.racing ? ' [racing]' : '';
      const logged = {
        method: exchange.method,
        template: exchange.template,
        pathAndQuery: url.pathname.slice(basePathLength) + url.search + credentials + racing,
        body: exchange.requestBody,
      };
      appendFileSync(
        file,
        `${JSON.stringify({
          ...behaviourOf(logged, exchange, runTag),
          at: sentBy.at,
          by: sentBy.label,
          ...(sentBy.operation ? { for: sentBy.operation } : {}),
        })}\n`,
      );
    },
  };
}

/** A header list of HAR 1.2 from a record of headers. */
const harHeaders = (headers: Record<string, string>) =>
  Object.entries(headers).map(([name, value]) => ({ name, value }));

/**
 * One HAR 1.2 entry per line (report/har.ts joins them into `exchanges.har`): the request and the answer as
 * recorded, bodies capped at the recording limit as the evidence is. An exchange that got no answer has
 * status 0 and its error as the response's comment, as browsers record a failed request.
 */
export function harRecorder(file: string): ExchangeRecorder {
  return {
    record(exchange, _request, sentBy) {
      const url = new URL(exchange.url);
      const requestType = exchange.requestHeaders['content-type'] ?? 'application/json';
      const entry = {
        startedDateTime: new Date(Date.now() - exchange.ms).toISOString(),
        time: exchange.ms,
        request: {
          method: exchange.method,
          url: exchange.url,
          httpVersion: 'HTTP/1.1',
          cookies: [],
          headers: harHeaders(exchange.requestHeaders),
          queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
          ...(exchange.requestBody !== undefined
            ? { postData: { mimeType: requestType, text: exchange.requestBody } }
            : {}),
          headersSize: -1,
          bodySize: exchange.requestBody === undefined ? 0 : Buffer.byteLength(exchange.requestBody),
        },
        response: {
          status: exchange.status,
          statusText: '',
          httpVersion: 'HTTP/1.1',
          cookies: [],
          headers: harHeaders(exchange.responseHeaders),
          content: {
            size: exchange.bodyBytes,
            mimeType: exchange.contentType || 'x-unknown',
            text: exchange.body,
            ...(exchange.truncated ? { comment: 'cut at the recording limit' } : {}),
          },
          redirectURL: exchange.responseHeaders.location ?? '',
          headersSize: -1,
          bodySize: exchange.bodyBytes,
          ...(exchange.error ? { comment: exchange.error } : {}),
        },
        cache: {},
        timings: { send: 0, wait: exchange.ms, receive: 0 },
        comment: `${exchange.template}${sentBy.operation ? ` (for ${sentBy.operation})` : ''}, sent by ${sentBy.label}${exchange.attempts > 1 ? `, attempt ${exchange.attempts}` : ''}`,
      };
      appendFileSync(file, `${JSON.stringify(entry)}\n`);
    },
  };
}
