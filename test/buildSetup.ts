/**
 * The unit tests' one setup: the CLI compiled from the current source (incremental), for the tests that load
 * its compiled modules as the CLI runs them (threads). No server: unit tests talk to none.
 */
import { buildCli } from './support/runCli.js';

export function setup(): void {
  buildCli();
}
