import { describe, expect, test } from 'vitest';
import { installSteps, type PrefectPin } from '../../../src/managed/prefect.js';

const pin: PrefectPin = { prefect: '3.8.8', constraints: ['fastapi==0.115.0'], add: ['importlib_metadata'] };
const tools = { python: 'python3', packageIndex: 'https://pypi.org/simple' };

describe('installSteps', () => {
  test('uv and pip install the same requirements with the same constraints file', () => {
    const uv = installSteps(pin, '/c/prefect-3.8.8', '/c/constraints-3.8.8.txt', { ...tools, uv: '/c/uv/bin/uv' });
    const pip = installSteps(pin, '/c/prefect-3.8.8', '/c/constraints-3.8.8.txt', tools);
    const wanted = ['prefect==3.8.8', 'importlib_metadata', '-c', '/c/constraints-3.8.8.txt'];
    expect(uv.map((s) => s.cmd)).toEqual(['/c/uv/bin/uv', '/c/uv/bin/uv']);
    expect(uv[1].args.slice(-wanted.length)).toEqual(wanted);
    expect(pip[1].args.slice(-wanted.length)).toEqual(wanted);
    // uv is told the index pip would read, and installs into the venv it made, never its own environment.
    expect(uv[1].args).toEqual(expect.arrayContaining(['--index-url', 'https://pypi.org/simple']));
    expect(uv[1].args[uv[1].args.indexOf('--python') + 1]).toBe('/c/prefect-3.8.8/bin/python');
    expect(uv[1].args).not.toContain('--exclude-newer');
    expect(pip.map((s) => s.cmd)).toEqual(['python3', '/c/prefect-3.8.8/bin/pip']);
  });

  test('a release pinned to its own time is installed as of that instant, which only uv can do', () => {
    const dated = { ...pin, excludeNewer: '2025-01-02T00:00:00Z' };
    const [, install] = installSteps(dated, '/d', '/c.txt', { ...tools, uv: 'uv' });
    expect(install.args[install.args.indexOf('--exclude-newer') + 1]).toBe('2025-01-02T00:00:00Z');
    expect(install.what).toBe('uv pip install prefect==3.8.8 --exclude-newer 2025-01-02T00:00:00Z');
    expect(() => installSteps(dated, '/d', '/c.txt', tools)).toThrow(/needs uv/);
  });
});
