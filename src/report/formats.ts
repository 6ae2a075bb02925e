/**
 * The report files a run writes, one record each: its name (what `--report` asks for), its file in the report
 * folder, and how it is made from the results and the run's recorded exchanges. The run and `merge` write
 * them from this list, and publish moves them by it: a format is added here and nowhere else.
 */
import path from 'node:path';
import { UsageError } from '../config/errors.js';
import { runFiles } from '../config/runFolder.js';
import { harDocument } from './har.js';
import { htmlReport } from './html.js';
import { junitReport } from './junit.js';
import { markdownSummary } from './markdown.js';
import type { Results } from './results.js';

/** Where a run's recorded exchanges are, for a format made from them. */
export interface RunExchanges {
  /** The HAR entries the run's clients recorded, one per line (http/recorders.ts). */
  harEntries: string;
}

export interface ReportFormat {
  name: string;
  file: string;
  /** Written by every run; else only when `--report` names it. */
  always: boolean;
  description: string;
  render(results: Results, exchanges: RunExchanges): string;
}

export const REPORT_FORMATS: readonly ReportFormat[] = [
  { name: 'html', file: 'index.html', always: true, description: 'the report people read', render: htmlReport },
  {
    name: 'json',
    file: 'results.json',
    always: true,
    description: 'every verdict with its evidence, and the run around them',
    render: (results) => JSON.stringify(results, null, 2),
  },
  {
    name: 'junit',
    file: 'junit.xml',
    always: true,
    description: "JUnit XML, for CI's test report",
    render: junitReport,
  },
  {
    name: 'markdown',
    file: 'summary.md',
    always: true,
    description: 'the summary as Markdown (a pull request comment, a step summary)',
    render: markdownSummary,
  },
  {
    name: 'har',
    file: 'exchanges.har',
    always: false,
    description: 'every exchange of the run as HAR 1.2, secrets redacted (a HAR viewer opens it)',
    render: (results, exchanges) => harDocument(results, exchanges.harEntries),
  },
];

/** The formats that are asked for only by name. */
export const OPTIONAL_FORMATS = REPORT_FORMATS.filter((f) => !f.always).map((f) => f.name);

/** The formats a run writes: every one always written, and those `asked` names; a name of none is bad input. */
export function formatsOf(asked: readonly string[]): ReportFormat[] {
  const unknown = asked.filter((name) => !REPORT_FORMATS.some((f) => f.name === name));
  if (unknown.length)
    throw new UsageError(
      `--report ${unknown.join(',')}: not a report format; the formats are ${REPORT_FORMATS.map((f) => f.name).join(', ')}`,
    );
  return REPORT_FORMATS.filter((f) => f.always || asked.includes(f.name));
}

/** The run's recorded exchanges, in its report folder's `.run` (config/runFolder.ts). */
export const exchangesIn = (outDir: string): RunExchanges => ({
  harEntries: runFiles(path.join(outDir, '.run')).harEntries,
});
