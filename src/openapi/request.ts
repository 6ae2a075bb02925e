/**
 * A request to send to an operation of the document, and the part of its answer that the stages before the
 * HTTP client read (resources record what a create made; profiles read a token another operation hands out).
 * The client's `Exchange` is a superset of `Answer`.
 */
export interface RequestToSend {
  method: string;
  /** The operation's path template, e.g. `/flows/{id}`; for reports and per-operation counts. */
  template: string;
  /** The concrete path relative to the base URL, e.g. `/flows/6f1…`. */
  path: string;
  query?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
  /** A value to send as JSON, or `raw` text sent exactly as given. */
  json?: unknown;
  raw?: string;
  /** Leave out the configured credentials (auth checks). */
  withoutAuth?: boolean;
  /**
   * A request a conforming server refuses before it touches its data: a body the document's own schema
   * refuses (4xx from validation), a method the path does not offer (405 from routing). It need not wait for
   * another write to finish (http/client.ts).
   */
  refusedBeforeData?: boolean;
  /**
   * Its values are past what a server must hold (cases/edges.ts EXTREME): a 503 to it is more likely its
   * values' answer than the server's load (Prefect on PostgreSQL answers 503 to a value the database refuses).
   * After a 503 it is sent once more, never alone, and its 503s say nothing of the load (http/pacing).
   */
  valuesSuspect?: boolean;
  /**
   * Sent at the same moment as another request on purpose (two clients racing one transition): it goes at
   * once, never held back for the server's sake, for the race is what the check asks about.
   */
  racing?: boolean;
}

export interface Answer {
  /** 0 when no complete response arrived. */
  status: number;
  /** The body as text (capped). */
  body: string;
  /** Parsed JSON when the body is JSON. */
  json?: unknown;
  /** Why no answer came, when status is 0. */
  error?: string;
}

/** Sends a request on the run's one client. */
export type Send = (request: RequestToSend) => Promise<Answer>;

export const is2xx = (answer: Pick<Answer, 'status'>): boolean => answer.status >= 200 && answer.status < 300;
/**
 * A server error that is not unavailability: 503 says "retry later" (RFC 9110 §15.6.4), which the pacing and
 * contract.available judge; every other 5xx is contract.no-5xx's.
 */
export const isServerError = (answer: Pick<Answer, 'status'>): boolean => answer.status >= 500 && answer.status !== 503;
