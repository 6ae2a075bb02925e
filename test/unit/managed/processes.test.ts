import { spawn } from 'node:child_process';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cpuSeconds, listenerPid, pssKb, rssKb, tree } from '../../../src/managed/processes.js';

const servers: net.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

function listen(host: string): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    servers.push(server);
    server.listen(0, host, () => resolve((server.address() as net.AddressInfo).port));
  });
}

describe('listenerPid', () => {
  it('finds the process that listens on a local URL’s port, by IPv4 and IPv6 name', async () => {
    const port = await listen('127.0.0.1');
    expect(listenerPid(new URL(`http://127.0.0.1:${port}/api`))).toBe(process.pid);
    expect(listenerPid(new URL(`http://localhost:${port}/api`))).toBe(process.pid);
    const port6 = await listen('::1');
    expect(listenerPid(new URL(`http://[::1]:${port6}/api`))).toBe(process.pid);
  });

  it('does not take a listener on the same port of another address for the one a URL names', async () => {
    const port6 = await listen('::1');
    // Only IPv6's loopback listens on this port here: 127.0.0.1 names no listener of it.
    expect(listenerPid(new URL(`http://127.0.0.1:${port6}/api`))).not.toBe(process.pid);
  });

  it('finds no process for a port nobody listens on, nor for a host elsewhere', async () => {
    const port = await listen('127.0.0.1');
    servers.pop()?.close();
    await new Promise((r) => setTimeout(r, 20));
    expect(listenerPid(new URL(`http://127.0.0.1:${port}/api`))).toBeUndefined();
    const open = await listen('127.0.0.1');
    expect(listenerPid(new URL(`http://example.org:${open}/api`))).toBeUndefined();
  });
});

describe('tree, cpuSeconds, rssKb and pssKb', () => {
  it('a child is in its parent’s tree, with CPU time and resident memory of its own', async () => {
    // It spins until it has had 300 ms of CPU, then says so: on a busy machine 300 ms of wall time gave less than 0.1 s.
    const child = spawn(process.execPath, [
      '-e',
      'const s=process.cpuUsage(); while (process.cpuUsage(s).user<300000); process.stdout.write("spun"); setTimeout(()=>{},5000)',
    ]);
    try {
      await new Promise((r) => child.stdout.once('data', r));
      expect(tree(process.pid)).toContain(child.pid);
      expect(tree(child.pid!)).toEqual([child.pid]);
      expect(cpuSeconds(child.pid!, false)).toBeGreaterThan(0.1);
      expect(rssKb(child.pid!)).toBeGreaterThan(1000);
      expect(rssKb(2 ** 22 + 1)).toBe(0);
      // node's binary is mapped by this process too: the child's share of it is less than its resident size.
      expect(pssKb(child.pid!)).toBeGreaterThan(1000);
      expect(pssKb(child.pid!)).toBeLessThan(rssKb(child.pid!));
      expect(pssKb(2 ** 22 + 1)).toBe(0);
    } finally {
      child.kill();
    }
  });
});
