/**
 * Where a side-by-side benchmark's clients run (bench/stdio-calls.ts, bench/modern-calls.ts). By default each
 * contender's client runs in a process of its own, a host (bench/contender-host.ts) forked with an IPC channel: in
 * one process the clients would share one heap, one garbage collector and one event loop, so the garbage a heavy
 * client leaves (and the heap it grows) would be collected during a lighter one's rounds and counted against it.
 * A host builds its contender with the suite's own factory and times the calls itself; the benchmark process only
 * orders the rounds, one request at a time, and keeps the medians. `inProcess` is the former way (all clients in
 * the benchmark process), behind `--shared-client-process`, to compare.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { atLevel, runFor } from './contenders-levels.ts';
import type { Op } from './harness.ts';
import { type Loader, hasFlag, loaderArgs, repoRoot } from './lib.ts';
import { type PeerSample, timedWithPeer } from './transport-lib.ts';

/** The suites a host can build contenders of: the module it imports for each is in bench/contender-host.ts. */
export type HostSuiteName = 'stdio' | 'modern';

/** Calls answered by an error instead of the echo: how many, and the first error's message. */
export interface CallFailure {
  readonly count: number;
  readonly first: string;
}

/** A contender as a suite's factory builds it: its call, and the pid of the server child it talks to. */
export interface SuiteContender<N extends string = string> extends Op<N> {
  readonly pid: number;
  /** What was checked about the protocol era spoken, when the suite checks it. */
  readonly era?: string;
  close(): Promise<void>;
}

/** What a suite module exports for a host: its contenders' factory, and the failed calls it counted. */
export interface HostSuite {
  make(name: string, loader: Loader): Promise<SuiteContender>;
  failure?(name: string): CallFailure | undefined;
}

/** Benchmark process to host, one at a time; each gets exactly one reply. */
export type HostRequest =
  | { readonly kind: 'measure'; readonly count: number; readonly width: number }
  | { readonly kind: 'rate'; readonly width: number; readonly ms: number }
  | { readonly kind: 'close' };

/** Host to benchmark process: `ready` first (or `error`), then one reply per request. */
export type HostReply =
  | { readonly kind: 'ready'; readonly label: string; readonly era?: string }
  | { readonly kind: 'sample'; readonly sample: PeerSample }
  | { readonly kind: 'rate'; readonly callsPerSecond: number }
  | { readonly kind: 'closed'; readonly closed: Closed }
  | { readonly kind: 'error'; readonly message: string };

/** What a contender reports as it closes: its failed calls (hosted only) and the listener warnings its process counted. */
export interface Closed {
  readonly failure?: CallFailure;
  readonly listenerWarnings: number;
}

/** A contender as a benchmark's loop drives it, wherever its client runs. */
export interface Contestant<N extends string = string> {
  readonly name: N;
  readonly label: string;
  readonly era: string | undefined;
  /** `count` calls at `width` in flight (1: sequential), timed, with the server child's CPU over the same span. */
  measure(count: number, width: number): Promise<PeerSample>;
  /** Calls/s at `width` in flight over about `ms` (warm-up, calibration). */
  rate(width: number, ms: number): Promise<number>;
  close(): Promise<Closed>;
}

/** Where the clients run: `own` a process per contender (the default), `shared` all in the benchmark process. */
export type ClientProcess = 'own' | 'shared';

/** `--shared-client-process` selects the former harness. */
export const argClientProcess = (): ClientProcess => (hasFlag('shared-client-process') ? 'shared' : 'own');

/** A contender whose client runs in this process (`--shared-client-process`, and the `--profile` modes). */
export function inProcess<N extends string>(contender: SuiteContender<N>): Contestant<N> {
  return {
    name: contender.name,
    label: contender.label,
    era: contender.era,
    measure: (count, width) => timedWithPeer(count, contender.pid, () => atLevel(contender, count, width)),
    rate: (width, ms) => runFor(contender, width, ms),
    close: async () => {
      await contender.close();
      return { listenerWarnings: 0 };
    },
  };
}

const hostScript = join(repoRoot, 'bench/contender-host.ts');

/** The IPC channel to one host: requests in order, each settled by the next reply (or by the host's exit). */
class HostChannel {
  private readonly waiting: { resolve(reply: HostReply): void; reject(error: Error): void }[] = [];
  private gone: Error | undefined;
  readonly exited: Promise<void>;

  constructor(private readonly child: ChildProcess, private readonly what: string) {
    child.on('message', (message) => {
      const reply = message as HostReply;
      const waiter = this.waiting.shift();
      if (reply.kind === 'error') waiter?.reject(new Error(`${what}: ${reply.message}`));
      else waiter?.resolve(reply);
    });
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.gone = new Error(`${what}: the host process exited (${signal ?? `code ${String(code)}`})`);
        for (const waiter of this.waiting.splice(0)) waiter.reject(this.gone);
        resolve();
      });
    });
  }

  /** The next reply, without a request (the host's first, `ready`). */
  next(): Promise<HostReply> {
    if (this.gone !== undefined) return Promise.reject(this.gone);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  ask(request: HostRequest): Promise<HostReply> {
    const reply = this.next();
    this.child.send(request);
    return reply;
  }

  expect<K extends HostReply['kind']>(reply: HostReply, kind: K): Extract<HostReply, { kind: K }> {
    if (reply.kind !== kind) throw new Error(`${this.what}: expected '${kind}' from the host, got '${reply.kind}'`);
    return reply as Extract<HostReply, { kind: K }>;
  }
}

/**
 * Forks a host for contender `name` of `suite`, its sources loaded like the servers' (`loader`), and waits until
 * the contender is built and checked. `--server-prof` is passed on (the suites' factories read it).
 */
export async function hosted<N extends string>(suite: HostSuiteName, name: N, loader: Loader): Promise<Contestant<N>> {
  const args = [`--suite=${suite}`, `--contender=${name}`, `--loader=${loader}`, ...(hasFlag('server-prof') ? ['--server-prof'] : [])];
  // 'advanced' serialization keeps NaN (a peer CPU read where /proc is missing) a number, where JSON makes it null.
  const child = fork(hostScript, args, { cwd: repoRoot, execArgv: loaderArgs(loader), serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const channel = new HostChannel(child, `${suite}/${name}`);
  let ready: Extract<HostReply, { kind: 'ready' }>;
  try {
    ready = channel.expect(await channel.next(), 'ready');
  } catch (error) {
    child.kill();
    throw error;
  }
  return {
    name,
    label: ready.label,
    era: ready.era,
    measure: async (count, width) => channel.expect(await channel.ask({ kind: 'measure', count, width }), 'sample').sample,
    rate: async (width, ms) => channel.expect(await channel.ask({ kind: 'rate', width, ms }), 'rate').callsPerSecond,
    close: async () => {
      const { closed } = channel.expect(await channel.ask({ kind: 'close' }), 'closed');
      await channel.exited;
      return closed;
    },
  };
}

/** A contender of `suite`, its client in a host of its own (`own`) or in this process (`shared`). */
export async function contestant<N extends string>(
  placement: ClientProcess,
  suite: HostSuiteName,
  name: N,
  loader: Loader,
  make: (name: N, loader: Loader) => Promise<SuiteContender<N>>,
): Promise<Contestant<N>> {
  return placement === 'own' ? hosted(suite, name, loader) : inProcess(await make(name, loader));
}

/** The method, as the RESULTS.md writers (bench/transports-markdown.ts, bench/modern.ts) say it. */
export function clientsMethod(placement: ClientProcess): string {
  return placement === 'own'
    ? `Each contender's client runs in a process of its own: a host (\`bench/contender-host.ts\`), forked by the benchmark
process with an IPC channel and loaded like it, builds the contender with the benchmark's own factory (its server a
child of the host) and times its calls itself (wall clock, its own \`process.cpuUsage()\`, its server child's CPU);
the benchmark process only orders the rounds, asking one host at a time for a sample, and keeps the medians. No two
clients share a heap, a garbage collector or an event loop, so one client's garbage is not collected in another's
rounds (\`--shared-client-process\` runs all clients in the benchmark process, the former harness, to compare).`
    : `All clients run in the benchmark process (\`--shared-client-process\`), each server a child of it: the clients share
one heap, one garbage collector and one event loop, so garbage one client leaves may be collected during another's
rounds (the default runs each client in a process of its own).`;
}
