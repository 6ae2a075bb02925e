/**
 * Names and tags that make every object the run creates recognisable as its own: names carry the
 * run's prefix, tag lists carry the run's tag. Names stay inside the characters every server accepts.
 */
import fc from 'fast-check';
import type { Schema } from '../openapi/operations.js';
import { fitString } from '../openapi/fitString.js';

/** Property names whose value names the object (and so must carry the run's prefix). */
const NAME_FIELDS = /^(name|slug|key|tag|task_key|dynamic_key)$/;

/** The property names the object by its value (`name`, `key`, `slug`, ...). */
export const isNameField = (field: string): boolean => NAME_FIELDS.test(field);

export class SafeValues {
  private counter = 0;

  constructor(readonly runTag: string) {}

  isNameField(field: string): boolean {
    return isNameField(field);
  }

  /** A fresh unique name: `<runTag>-<n>`, cut to the schema's maxLength and fitted to its pattern where a form of it fits. */
  name(schema?: Schema): string {
    const value = `${this.runTag}-${++this.counter}`;
    const s = (schema ?? {}) as { pattern?: string; maxLength?: number };
    return fitString(value, s) ?? fitString(value, { maxLength: s.maxLength })!;
  }

  tags(): string[] {
    return [this.runTag];
  }

  nameArbitrary(schema?: Schema): fc.Arbitrary<string> {
    const s = (schema ?? {}) as { pattern?: string; maxLength?: number };
    return fc.tuple(fc.constantFrom('', '-a', '-B', '_x', '-d_1'), fc.nat({ max: 10_000 })).map(([suffix, n]) => {
      const value = `${this.runTag}-g${n}${suffix}`;
      const max = s.maxLength;
      const cut = max !== undefined && value.length > max ? value.slice(0, max) : value;
      // In a form the document's pattern admits, where one does (`-B` is `-b` under `^[a-z0-9-]+$`).
      return s.pattern ? (fitString(cut, { pattern: s.pattern }) ?? cut) : cut;
    });
  }

  tagsArbitrary(): fc.Arbitrary<string[]> {
    return fc
      .subarray([`${this.runTag}-a`, `${this.runTag}-b`, `${this.runTag}-c`])
      .map((extra) => [this.runTag, ...extra]);
  }
}
