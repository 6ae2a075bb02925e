/**
 * The signal that a run stopped sending, apart from the client that throws it: the checks' declarations catch
 * it, and they load where no request is sent (the CLI's main thread reads them for the conformance statement),
 * which would otherwise load the HTTP client and undici with them.
 */

/** Thrown for a request asked for after the run stopped sending (its budget or deadline spent); whoever wanted it reports "not run". */
export class SendingStopped extends Error {}

/** How the reason of a SendingStopped starts, wherever it is passed on as a skip's reason. */
export const NOT_RUN = 'not run:';
