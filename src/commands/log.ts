/** The commands' log lines on stderr. */
import type { Config } from '../config/config.js';

/** A log line's writer. */
export type Log = (line: string) => void;

/** A command's log, by its configuration: lines on stderr, none where it asks for quiet. */
export const logTo =
  (config: Pick<Config, 'quiet'>): Log =>
  (line) => {
    if (!config.quiet) process.stderr.write(`conformance: ${line}\n`);
  };
