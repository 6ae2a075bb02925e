/** pip's "no such version", in one line with the newest release the index has. */
import { describe, expect, test } from 'vitest';
import { notOnIndex } from '../../../src/managed/prefect.js';

describe('notOnIndex', () => {
  test("pip's whole list of versions becomes the newest of them; another failure is left as pip said it", () => {
    const pip =
      'pip install prefect==9.9.9 failed (exit 1): ERROR: Could not find a version that satisfies the requirement prefect==9.9.9 (from versions: 0.5.0, 0.5.1, 3.8.8, 3.9.1) | ERROR: No matching distribution found for prefect==9.9.9';
    expect(notOnIndex('9.9.9', pip)).toBe('the package index has no prefect 9.9.9 (its newest: 3.9.1)');
    expect(
      notOnIndex('3.8.8', 'pip install prefect==3.8.8 failed (exit 1): ERROR: resolution impossible'),
    ).toBeUndefined();
  });
});
