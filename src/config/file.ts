/**
 * conformance.config.json: the settings a team keeps beside its code instead of in a CI script. The file is
 * validated against the JSON Schema that ships with the suite (schemas/conformance.config.schema.json,
 * made from the option table), and its values become the variables they stand for, below the environment
 * and the flags. Paths in it are relative to the file's folder.
 */
import { madeOnce } from './madeOnce.js';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { Env } from './env.js';
import { UsageError } from './errors.js';
import { RUN_OPTIONS, type RunOption, SECRET_VARIABLES } from './options.js';

export const CONFIG_FILE_NAME = 'conformance.config.json';

export const schemaPath = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'schemas',
  'conformance.config.schema.json',
);

const PATH_KEYS = new Set(['document', 'out', 'baseline']);
const BASELINE_WORDS = new Set(['auto', 'none']);

function schemaOf(option: RunOption): Record<string, unknown> {
  const description = `${option.description} (${option.flag}, ${option.env}; default: ${option.default ?? 'none'})`;
  switch (option.type) {
    case 'boolean':
      return { type: 'boolean', description };
    case 'integer':
      return { type: 'integer', minimum: 0, description };
    case 'list':
      return {
        description,
        oneOf: [
          { type: 'array', items: { type: 'string', minLength: 1 } },
          { type: 'string', minLength: 1 },
        ],
      };
    default:
      return option.key === 'seed'
        ? { description, oneOf: [{ type: 'integer', minimum: 0 }, { const: 'random' }] }
        : { type: 'string', minLength: 1, description };
  }
}

/** The JSON Schema of the configuration file, made from the option table. */
export function configFileSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    $schema: { type: 'string', description: 'the schema this file follows' },
  };
  for (const option of RUN_OPTIONS) if (option.key) properties[option.key] = schemaOf(option);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://github.com/orchestration-conformance/schemas/conformance.config.schema.json',
    title: 'Orchestration API conformance suite: configuration file',
    description:
      'Settings of a run. Precedence: flags > environment > this file > defaults. Secrets (CONFORMANCE_API_KEY, CONFORMANCE_AUTH_STRING) are read from the environment only.',
    type: 'object',
    additionalProperties: false,
    properties,
  };
}

/** The configuration file's schema, compiled by the first file read: every thread of a run imports this module, few read a file. */
const fileValidator = madeOnce((): ReturnType<Ajv2020['compile']> => {
  const { Ajv2020: Validator } = createRequire(import.meta.url)(
    'ajv/dist/2020.js',
  ) as typeof import('ajv/dist/2020.js');
  return new Validator({ allErrors: false, strict: true }).compile(
    JSON.parse(readFileSync(schemaPath, 'utf8')) as object,
  );
});

/** An unknown key; one that looks like a secret says where secrets go (a file is often committed). */
function unknownSetting(key: string): string {
  const secret = /key|token|secret|password|auth/i.test(key);
  return `unknown setting "${key}"${secret ? `: secrets are read from the environment only (${SECRET_VARIABLES.map((v) => v.env).join(', ')}), never from a file` : ''}`;
}

/** The variables a configuration file sets; a file that is not valid JSON or breaks the schema is a UsageError. */
export function readConfigFile(file: string): Env {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`configuration file ${file} is not valid JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  const validator = fileValidator();
  if (!validator(parsed)) {
    const [error] = validator.errors ?? [];
    const where = error?.instancePath || '/';
    const key = where.split('/')[1];
    const option = RUN_OPTIONS.find((o) => o.key === key);
    const what =
      error?.keyword === 'additionalProperties'
        ? unknownSetting((error.params as { additionalProperty: string }).additionalProperty)
        : // A setting of several forms (a seed: a number or "random") fails on one of them: name them all.
          error?.schemaPath.includes('/oneOf/') && option
          ? `is not ${option.type === 'list' ? 'a list of strings or a comma-separated string' : `${option.value}`}`
          : (error?.message ?? 'invalid');
    throw new UsageError(`configuration file ${file}: ${where} ${what} (schema: ${path.basename(schemaPath)})`);
  }
  const env: Env = {};
  const folder = path.dirname(path.resolve(file));
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    const option = RUN_OPTIONS.find((o) => o.key === key);
    if (!option) continue; // $schema
    let text = Array.isArray(value) ? value.join(',') : value === true ? '1' : value === false ? '0' : String(value);
    // A path is the file's; a URL, and the baseline's words auto and none, are not paths.
    if (PATH_KEYS.has(key) && !/^https?:\/\//.test(text) && !(key === 'baseline' && BASELINE_WORDS.has(text)))
      text = path.resolve(folder, text);
    env[option.env] = text;
  }
  return env;
}

/** The configuration file of a run: the one named, or conformance.config.json in the working folder if present. */
export function configFileOf(named: string | undefined, cwd = process.cwd()): string | undefined {
  if (named) {
    if (!existsSync(named)) throw new UsageError(`configuration file not found: ${named}`);
    return named;
  }
  const local = path.join(cwd, CONFIG_FILE_NAME);
  return existsSync(local) ? local : undefined;
}
