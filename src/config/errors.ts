/** Bad input: the CLI turns it into one line on stderr and exit code 2, never a stack trace. */
export class UsageError extends Error {
  readonly exitCode = 2;
}

/**
 * The run could not judge the target for a cause of the machine's, not the target's (the suites' worker thread
 * did not start, twice): one line and exit code 2, like bad input, never a verdict.
 */
export class CannotRunError extends UsageError {}

/** A verdict that ends a command before its report (a release that does not start on its migrated database): one line, exit 1. */
export class GateFailure extends Error {
  readonly exitCode = 1;
}
