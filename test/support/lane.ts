/** The managed Prefect of this test file's lane (globalSetup.ts): no other file uses it while this one runs. */
import { inject } from 'vitest';

export function laneBaseUrl(): string {
  const urls = inject('prefectBaseUrls');
  // vitest numbers the workers that run at one time from 1 (VITEST_POOL_ID), one number each.
  const lane = Number(process.env.VITEST_POOL_ID ?? '1') - 1;
  const url = urls[lane];
  if (!url) throw new Error(`no Prefect server for lane ${lane + 1} of ${urls.length}`);
  return url;
}
