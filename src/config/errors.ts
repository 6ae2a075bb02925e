/** Bad input: the CLI turns it into one line on stderr and exit code 2, never a stack trace. */
export class UsageError extends Error {
  readonly exitCode = 2;
}
