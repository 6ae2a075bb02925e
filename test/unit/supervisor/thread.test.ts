import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { surveyDocument, type SurveyRequest } from '../../../src/model/documentSurvey.js';
import { openThread, sibling } from '../../../src/supervisor/thread.js';
import { repoRoot } from '../../support/runCli.js';

type Survey = typeof import('../../../src/model/documentSurvey.js');
type Preflight = typeof import('../../../src/supervisor/preflight.js');

const reference = path.join(repoRoot, 'fixtures', 'reference', 'prefect-openapi.json');
const request = (source: string): SurveyRequest => ({
  source,
  headers: {},
  timeoutMs: 10_000,
  writeTo: path.join(mkdtempSync(path.join(os.tmpdir(), 'thread-')), 'openapi.json'),
});

// The thread loads modules as Node loads them: compiled, as the CLI runs (globalSetup builds dist/), and
// from source, the thread registering tsx first.
const dist = (file: string) => pathToFileURL(path.join(repoRoot, 'dist', file)).href;
const source = (file: string) => pathToFileURL(path.join(repoRoot, 'src', file));

describe('openThread', () => {
  test('a call answers as the function does in this thread, compiled and from source', async () => {
    const here = await surveyDocument(request(reference));
    const compiled = (await import(dist('supervisor/thread.js'))) as typeof import('../../../src/supervisor/thread.js');
    const inDist = compiled.openThread<Survey>(new URL(dist('model/documentSurvey.js')));
    const fromSource = openThread<Survey>(source('model/documentSurvey.ts'));
    try {
      expect(await inDist.call('surveyDocument', request(reference))).toEqual(here);
      expect(await fromSource.call('surveyDocument', request(reference))).toEqual(here);
    } finally {
      await Promise.all([inDist.end(), fromSource.end()]);
    }
  });

  test("bad input in the thread stays bad input: a UsageError with the thread's message", async () => {
    const compiled = (await import(dist('supervisor/thread.js'))) as typeof import('../../../src/supervisor/thread.js');
    const { UsageError } = (await import(dist('config/errors.js'))) as typeof import('../../../src/config/errors.js');
    const thread = compiled.openThread<Survey>(new URL(dist('model/documentSurvey.js')));
    const missing = path.join(os.tmpdir(), 'no-such-document.json');
    try {
      const error = await thread.call('surveyDocument', request(missing)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toBe(`cannot read OpenAPI document ${missing}: ENOENT`);
      // The thread still serves calls after one failed.
      expect((await thread.call('surveyDocument', request(reference))).profile).toBe('prefect');
    } finally {
      await thread.end();
    }
  });

  test('one thread serves several calls; after it ends, a call is refused rather than left waiting', async () => {
    const thread = openThread<Preflight>(source('supervisor/preflight.ts'));
    const [all, none] = await Promise.all([
      thread.call('checksSelected', { selection: {}, checkModules: [] }),
      thread.call('checksSelected', { selection: { families: ['no-such-family'] }, checkModules: [] }),
    ]);
    expect(all.selected).toBe(all.of);
    expect(all.of).toBeGreaterThan(0);
    expect(none).toEqual({ selected: 0, of: all.of });
    await thread.end();
    await expect(thread.call('checksSelected', { selection: {}, checkModules: [] })).rejects.toThrow(/exited/);
  });

  test('a name the module does not export is an error of the call, not a hang', async () => {
    const thread = openThread<Record<string, (arg: unknown) => unknown>>(source('supervisor/preflight.ts'));
    try {
      await expect(thread.call('noSuchFunction', {})).rejects.toThrow(/exports no function noSuchFunction/);
    } finally {
      await thread.end();
    }
  });
});

describe('sibling', () => {
  test('names the file of the same kind as the caller: .js beside compiled code, .ts beside source', () => {
    expect(sibling('file:///r/dist/commands/run.js', '../supervisor/preflight.js').href).toBe(
      'file:///r/dist/supervisor/preflight.js',
    );
    expect(sibling('file:///r/src/commands/run.ts', '../supervisor/preflight.js').href).toBe(
      'file:///r/src/supervisor/preflight.ts',
    );
  });
});
