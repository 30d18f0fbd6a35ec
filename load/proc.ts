/**
 * A server process's CPU and memory, read from Linux's /proc: user + system time from /proc/<pid>/stat and the
 * resident set from /proc/<pid>/status, summed over the process and its descendants (a stdio command such as
 * `npx some-server` is a launcher whose child does the work). Elsewhere, or once the process is gone, there is
 * nothing to read and the figures are undefined.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times: 100 on every Linux that matters (USER_HZ). */
const TICKS_PER_SECOND = 100;
/** Descendants followed at most (a server that forks workers). */
const MAX_PROCESSES = 64;

export interface ProcessSample {
  /** CPU time used since the previous sample, in milliseconds, over the trees. */
  readonly cpuMs: number;
  /** Resident memory now, in bytes, over the tree. */
  readonly rssBytes: number;
  readonly processes: number;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function cpuMsOf(pid: number): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

function rssOf(pid: number): number | undefined {
  const status = read(`/proc/${pid}/status`);
  const kb = status === undefined ? undefined : /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  return kb === undefined ? undefined : Number(kb) * 1024;
}

function childrenOf(pid: number): number[] {
  const text = read(`/proc/${pid}/task/${pid}/children`);
  if (text === undefined) return [];
  return text.split(' ').filter((word) => word !== '').map(Number).filter((child) => Number.isSafeInteger(child) && child > 0);
}

/** The process and its descendants, found breadth first. */
export function processTree(pid: number): number[] {
  const found = [pid];
  for (let index = 0; index < found.length && found.length < MAX_PROCESSES; index++) {
    for (const child of childrenOf(found[index] ?? pid)) if (!found.includes(child) && found.length < MAX_PROCESSES) found.push(child);
  }
  return found;
}

/**
 * Watches the process trees of a set of roots (which may change: a stdio child started again) and tells, per
 * sample, the CPU used since the last sample and the resident memory now. A process seen for the first time
 * counts from its start (it began since the last sample), except at the first sample, which is the baseline.
 */
export class ProcessWatch {
  private last = new Map<number, number>();
  private first = true;

  /** CPU milliseconds since the previous sample and bytes resident now, or undefined when nothing can be read. */
  sample(roots: readonly number[]): ProcessSample | undefined {
    const now = new Map<number, number>();
    let cpuMs = 0;
    let rssBytes = 0;
    for (const root of roots) {
      for (const pid of processTree(root)) {
        if (now.has(pid)) continue;
        const cpu = cpuMsOf(pid);
        const rss = rssOf(pid);
        if (cpu === undefined || rss === undefined) continue;
        now.set(pid, cpu);
        cpuMs += cpu - (this.last.get(pid) ?? (this.first ? cpu : 0));
        rssBytes += rss;
      }
    }
    this.last = now;
    this.first = false;
    return now.size === 0 ? undefined : { cpuMs: Math.max(0, cpuMs), rssBytes, processes: now.size };
  }
}
