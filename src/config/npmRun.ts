/**
 * The run flags npm took for itself: `npm run conformance --base-url URL`, the `--` forgotten, gives npm the
 * flag (it sets npm_config_base_url) and the suite its value, as a word where a command goes.
 */
import type { Env } from './env.js';
import { RUN_OPTIONS } from './options.js';

export function flagsNpmTook(env: Env = process.env): string[] {
  if (!env.npm_lifecycle_event) return [];
  return RUN_OPTIONS.map((o) => o.flag).filter((f) => env[`npm_config_${f.slice(2).replace(/-/g, '_')}`] !== undefined);
}
