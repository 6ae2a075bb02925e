#!/usr/bin/env node
// The GitHub Action's outputs (action.yml), as `name=value` lines for $GITHUB_OUTPUT, from a run's results.json:
// the gate's verdict by the same rule as every report (dist/report/results.js), and the counts. A run that
// wrote no results (bad input, an unreachable server: exit 2) has the verdict ERROR.
import { existsSync, readFileSync } from 'node:fs';
import { gateVerdict } from '../dist/report/results.js';

const file = process.argv[2];
if (!file || !existsSync(file)) {
  process.stdout.write('verdict=ERROR\n');
} else {
  const results = JSON.parse(readFileSync(file, 'utf8'));
  const s = results.summary;
  process.stdout.write(
    `verdict=${gateVerdict(results).pass ? 'PASS' : 'FAIL'}\npassed=${s.passed}\nfailed=${s.failed}\nknown=${s.xfail}\n`,
  );
}
