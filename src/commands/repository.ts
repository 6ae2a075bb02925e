/** What the repository holds that the commands read: its root, and the baselines it ships. */
import path from 'node:path';
import { repoRoot } from '../config/repoRoot.js';
import type { Config } from '../config/config.js';
import { chooseBaseline, shippedBaselines, type BaselineChoice, type ReleaseClues } from '../baseline/choice.js';

export { repoRoot };

/** The baselines the suite ships, one per release (`<profile>-<release>.json`). */
export const SHIPPED_BASELINES = path.join(repoRoot, 'fixtures', 'baselines');

/** The baseline of a run (baseline/choice.ts: a file named, none, or the shipped one the rule finds). */
export function baselineOf(config: Pick<Config, 'baselinePath'>, profile: string, clues: ReleaseClues): BaselineChoice {
  return chooseBaseline(config.baselinePath, profile, clues, shippedBaselines(SHIPPED_BASELINES, profile), (file) =>
    path.relative(repoRoot, file),
  );
}
