/**
 * What the benchmark reads of processes on this machine, from /proc (Linux): CPU time, resident memory,
 * a process's descendants, and which process serves a local URL.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

const TICKS = 100; // USER_HZ on Linux

/** utime+stime (and, with children, the CPU of children that were waited for), in seconds. */
export function cpuSeconds(pid: number | 'self', withChildren: boolean): number {
  const fields = statFields(pid).map(Number);
  // fields[11..14] are utime, stime, cutime, cstime (stat fields 14..17)
  return (fields[11] + fields[12] + (withChildren ? fields[13] + fields[14] : 0)) / TICKS;
}

/** The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses): state first. */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The ids of the processes running now. */
const processIds = () => readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));

/** A size in kB that a /proc file of the process states on its line `name:`; 0 for a process that is gone. */
function procKb(pid: number, file: 'status' | 'smaps_rollup', name: string): number {
  try {
    const line = readFileSync(`/proc/${pid}/${file}`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${name}:`));
    return line ? Number(line.split(/\s+/)[1]) : 0;
  } catch {
    return 0;
  }
}

export const rssKb = (pid: number): number => procKb(pid, 'status', 'VmRSS');

/**
 * The process's proportional set size: its resident pages, each shared page divided among the processes
 * mapping it. Two node processes both count node's binary in their RSS, once in PSS.
 */
export const pssKb = (pid: number): number => procKb(pid, 'smaps_rollup', 'Pss');

/** The process and every descendant, by walking /proc. */
export function tree(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of processIds()) {
    try {
      parentOf.set(Number(entry), Number(statFields(entry)[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parentOf) if (ppid === out[i]) out.push(pid);
  return out;
}

/**
 * The local addresses (as /proc/net/tcp and tcp6 write them) a socket listening for a host's connections may
 * have: the host's loopback, or the wildcard of its family (and IPv6's, which takes IPv4 on a dual stack). A
 * process listening on the same port of another address is not the one a URL names.
 */
const V4_LOOPBACK = ['0100007F', '0000000000000000FFFF00000100007F'];
const V6_LOOPBACK = ['00000000000000000000000001000000'];
const WILDCARDS = ['00000000', '00000000000000000000000000000000'];
const LISTENING_FOR: Record<string, string[]> = {
  '127.0.0.1': [...V4_LOOPBACK, ...WILDCARDS],
  '[::1]': [...V6_LOOPBACK, WILDCARDS[1]!],
  localhost: [...V4_LOOPBACK, ...V6_LOOPBACK, ...WILDCARDS],
  '0.0.0.0': WILDCARDS,
};

/**
 * The process that listens on a local URL's port, from the kernel's socket table and each process's open
 * sockets; undefined for a host elsewhere (its CPU cannot be read here) or when nothing is found.
 */
export function listenerPid(url: URL): number | undefined {
  if (!(url.hostname in LISTENING_FOR)) return undefined;
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const addresses = LISTENING_FOR[url.hostname]!;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let rows: string[] = [];
    try {
      rows = readFileSync(table, 'utf8').trim().split('\n').slice(1);
    } catch {
      continue;
    }
    for (const row of rows) {
      // sl local_address rem_address st ... inode: st 0A is LISTEN; the port is the local address's hex after ':'
      const f = row.trim().split(/\s+/);
      const [address, hexPort] = f[1].split(':');
      if (f[3] === '0A' && Number.parseInt(hexPort, 16) === port && addresses.includes(address))
        inodes.add(`socket:[${f[9]}]`);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const entry of processIds()) {
    try {
      for (const fd of readdirSync(`/proc/${entry}/fd`))
        if (inodes.has(readlinkSync(`/proc/${entry}/fd/${fd}`))) return Number(entry);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return undefined;
}
