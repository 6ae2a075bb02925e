/** The tool's own name and version, as results.json reports them. */
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};

export const TOOL = { name: pkg.name, version: pkg.version };
