/**
 * Progress: under a pseudo-terminal (util-linux `script`) the run draws its progress line in place; with CI
 * set, it writes plain lines instead, a CI log's view of where the run is, and says what holds the run back.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { startGateway } from '../support/gateway.js';
import { laneBaseUrl } from '../support/lane.js';
import { cleanEnv, cliEntry, prefectBaseline, repoRoot, runCli } from '../support/runCli.js';

function runUnderTerminal(extra: Record<string, string>): { status: number | null; output: string } {
  const cli = JSON.stringify(cliEntry);
  const env = cleanEnv({
    CONFORMANCE_BASE_URL: laneBaseUrl(),
    CONFORMANCE_OPERATIONS: '^(GET|POST) /flows/',
    CONFORMANCE_BASELINE: prefectBaseline,
    CONFORMANCE_OUT: path.join(repoRoot, 'reports', '.progress-test'),
    ...extra,
  });
  delete env.CONFORMANCE_QUIET;
  delete env.CI;
  const r = spawnSync('script', ['-qec', cli, '/dev/null'], {
    cwd: repoRoot,
    env: { ...env, ...extra },
    encoding: 'utf8',
    timeout: 300_000,
  });
  return { status: r.status, output: r.stdout + r.stderr };
}

/** A progress line, drawn in place or plain; the requests once the first is answered, the estimate once the pace is known. */
const LINE =
  /^conformance: \d+ s \[\d+\/\d+ \w+\] ([1-9][\d,]*\/)?[\d,]+ checks · [\d,]+ judged, [\d,]+ failed( · [\d,]+( of ~[\d,]+)? requests( · about \d+ s left)?)?$/;

describe('progress', () => {
  test('on a terminal: the family and its checks done, checks judged and failed, requests of those expected', () => {
    const r = runUnderTerminal({});
    expect(r.status).toBe(0);
    const drawn = r.output
      .split(/\r|\n/)
      .map((l) => l.replace('\x1b[2K', ''))
      .filter((l) => / judged, /.test(l));
    // Cut to the terminal's width, a line may lose its end.
    for (const line of drawn)
      expect(line).toMatch(/^conformance: \d+ s \[\d+\/\d+ \w+\] ([1-9][\d,]*\/)?[\d,]+ checks · /);
    expect(drawn.some((l) => / \[\d+\/\d+ contract\] /.test(l))).toBe(true);
    expect(drawn.some((l) => / of ~[\d,]+ requests/.test(l))).toBe(true);
  });

  test('in CI: a plain line when a family starts, with the time since the start, never a line rewritten; the requests expected near those sent', () => {
    const r = runUnderTerminal({ CI: 'true' });
    expect(r.status).toBe(0);
    expect(r.output).toContain('passed');
    const lines = r.output.split(/\r?\n/).filter((l) => / judged, /.test(l));
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line).toMatch(LINE);
    // Counts that move: never a family's "0/N", and the checks judged grow from line to line.
    const judged = lines.map((l) => Number(/ ([\d,]+) judged, /.exec(l)![1]!.replace(/,/g, '')));
    for (let i = 1; i < judged.length; i++) expect(judged[i]).toBeGreaterThanOrEqual(judged[i - 1]!);
    expect(judged.at(-1)).toBeGreaterThan(0);
    expect(r.output).not.toContain('\x1b[2K');
    // The requests it expects are near those it sent (the summary's count has cleanup's too).
    const expected = Number(/ of ~([\d,]+) requests/.exec(r.output)?.[1].replace(/,/g, ''));
    const sent = Number(/^operations: .*?(\d+) requests in /m.exec(r.output)?.[1]);
    expect(sent).toBeGreaterThan(0);
    expect(expected / sent).toBeGreaterThan(0.7);
    expect(expected / sent).toBeLessThan(1.3);
  });

  test('in CI behind a server refusing 5 % of requests whatever their pace: a line at least every 15 s, and 429s named as what holds the run back', async () => {
    const gateway = await startGateway(laneBaseUrl(), { refuseShare: 0.05 });
    try {
      const r = await runCli(
        ['--families', 'contract,methods', '--operations', '^(GET|POST|PATCH|DELETE) /(flows|flow_runs)/'],
        {
          CONFORMANCE_BASE_URL: gateway.baseUrl,
          CONFORMANCE_API_KEY: gateway.key,
          CONFORMANCE_BASELINE: prefectBaseline,
          CONFORMANCE_QUIET: '',
          CI: 'true',
        },
      );
      expect(r.code).toBe(0);
      expect(gateway.counts().rateLimited).toBeGreaterThan(10);
      const seconds = r.stderr
        .split('\n')
        .filter((l) => LINE.test(l))
        .map((l) => Number(/^conformance: (\d+) s /.exec(l)?.[1]));
      expect(seconds.length).toBeGreaterThan(2);
      // From the first line to the last, never more than 15 s between two (a second's look rounds either way).
      for (let i = 1; i < seconds.length; i++) expect(seconds[i] - seconds[i - 1]).toBeLessThanOrEqual(16);
      expect(r.stderr).toMatch(
        /^conformance: held back: (paced at .* after \d+ answer\(s\) 429|429s whatever the pace on )/m,
      );
      // Once found, the 429s are named as not the pace's, and the end says so too.
      expect(r.stderr).toMatch(
        /^conformance: held back: 429s whatever the pace on .*: unpaced, each refused request waits its own Retry-After/m,
      );
      expect(r.results?.timing?.pacing?.rateLimited).toBeGreaterThan(10);
    } finally {
      await gateway.close();
    }
  });
});
