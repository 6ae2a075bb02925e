import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/config/config.js';
import { enforcesAuthString, knownVersions, managedSide, readPin } from '../../../src/managed/prefect.js';

const table = JSON.parse(readFileSync(path.resolve(__dirname, '../../../prefect-versions.json'), 'utf8')) as {
  pin: string;
  versions: Record<string, { constraints: string[]; add: string[]; why: string }>;
  unavailable: Record<string, string>;
};

describe('the version table', () => {
  it('gives the pin by default, with its pins and why', () => {
    const pin = readPin();
    expect(pin.prefect).toBe(table.pin);
    expect(pin.constraints).toEqual(table.versions[table.pin].constraints);
    expect(pin.why).toMatch(/\S/);
  });

  it('gives every listed release its own pins, and says why for each', () => {
    for (const [version, entry] of Object.entries(table.versions)) {
      const pin = readPin(version);
      expect(pin).toEqual({ prefect: version, ...entry });
      expect(entry.why.length).toBeGreaterThan(20);
      for (const c of entry.constraints) expect(c).toMatch(/^[A-Za-z0-9_.-]+==[0-9][\w.]*$/);
    }
    expect(knownVersions()[0]).toBe(table.pin);
    expect(new Set(knownVersions())).toEqual(new Set(Object.keys(table.versions)));
  });

  it('gives a release it does not list no pins (releasePins.ts finds them), and a release of its own time its date', () => {
    expect(readPin('3.5.0')).toEqual({ prefect: '3.5.0', constraints: [], add: [] });
    expect(readPin('2.19.9').excludeNewer).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('refuses a release that cannot be installed here, and a word that is no release, as bad input', () => {
    // As 3.9.x was until the index served the certifi it needs.
    const why = 'needs certifi>=2026.10.19; the newest certifi the package index here serves is 2026.10.18';
    const withUnavailable = { ...table, unavailable: { ...table.unavailable, '9.9.0': why } };
    expect(() => readPin('9.9.0', withUnavailable)).toThrow(UsageError);
    expect(() => readPin('9.9.0', withUnavailable)).toThrow(why);
    for (const bad of ['latest', '3.8', '3.8.8; rm -rf /', '']) expect(() => readPin(bad || 'x')).toThrow(UsageError);
  });
});

describe('managed sides of compare', () => {
  it('reads a database alone, a release alone, and a release on a database', () => {
    expect(managedSide('managed:sqlite')).toEqual({ database: 'sqlite' });
    expect(managedSide('managed:postgres')).toEqual({ database: 'postgres' });
    expect(managedSide('managed:prefect@3.4.25')).toEqual({ version: '3.4.25', database: 'sqlite' });
    expect(managedSide('managed:prefect@2.20.26/postgres')).toEqual({ version: '2.20.26', database: 'postgres' });
  });

  it('is no managed side for anything else', () => {
    for (const other of [
      'managed:mysql',
      'managed:prefect@',
      'managed:prefect@3.4.25/mysql',
      'http://x/api',
      'reports',
    ])
      expect(managedSide(other)).toBeUndefined();
  });
});

describe('which managed releases enforce an auth string', () => {
  it('from 3.1.8 on, as read in each release server.py; before it the setting is ignored', () => {
    for (const v of ['3.1.8', '3.1.10', '3.4.25', '3.8.8', '4.0.0', '3.2.0rc1'])
      expect(enforcesAuthString(v), v).toBe(true);
    for (const v of ['3.1.7', '3.1.0', '3.0.11', '2.20.26', '2.99.99']) expect(enforcesAuthString(v), v).toBe(false);
  });
});
