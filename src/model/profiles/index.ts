/** Choose the profile for a target from what its document says about itself. */
import type { LoadedDocument } from '../../openapi/load.js';
import { prefectProfile } from './prefect.js';
import type { Profile } from './profile.js';
import { seedProfile } from './seed.js';

export function profileFor(document: LoadedDocument): Profile {
  const title = document.raw.info?.title ?? '';
  const declaresPrefectHeader = JSON.stringify(document.raw.paths).includes('x-prefect-api-version');
  return /prefect/i.test(title) || declaresPrefectHeader ? prefectProfile : seedProfile;
}

/** A profile by its name, as the survey of the document in the preflight thread reports it (supervisor/preflight.ts). */
export function profileNamed(name: string): Profile {
  const profile = [prefectProfile, seedProfile].find((p) => p.name === name);
  if (!profile) throw new Error(`no profile is named "${name}"`);
  return profile;
}
