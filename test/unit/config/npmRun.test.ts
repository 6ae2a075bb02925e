/** The flags npm took for itself when `npm run conformance` was given them without `--`. */
import { describe, expect, test } from 'vitest';
import { flagsNpmTook } from '../../../src/config/npmRun.js';

describe('flagsNpmTook', () => {
  test('the run flags npm set as its own config (npm_config_<flag>), under npm run only', () => {
    const env = { npm_lifecycle_event: 'conformance', npm_config_base_url: 'true', npm_config_seed: '5' };
    expect(flagsNpmTook(env)).toEqual(['--base-url', '--seed']);
    expect(flagsNpmTook({ npm_config_base_url: 'true' })).toEqual([]);
    // npm's own settings are not the suite's flags.
    expect(flagsNpmTook({ npm_lifecycle_event: 'test', npm_config_cache: '/c', npm_config_user_agent: 'npm' })).toEqual(
      [],
    );
  });
});
