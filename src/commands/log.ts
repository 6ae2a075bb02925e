/** The commands' log line on stderr (none when asked to be quiet). */
import { quietRequested } from '../config/config.js';

export function log(line: string): void {
  if (!quietRequested()) process.stderr.write(`conformance: ${line}\n`);
}
