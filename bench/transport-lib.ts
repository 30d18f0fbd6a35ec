/**
 * Helpers shared by the transport benchmarks (bench/stdio-calls.ts, bench/http-calls.ts,
 * bench/http-idle-sessions.ts): the peer process's CPU read from /proc, the server programs of
 * bench/transport-programs.ts started as child processes, and the floors' minimal JSON-RPC clients.
 */
import { type ChildProcessByStdio, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { callArgs } from './echo-tool.ts';
import { type Figures, type Sample, timed } from './harness.ts';
import { type Loader, fmt, loaderArgs, median, repoRoot } from './lib.ts';

export const programScript = join(repoRoot, 'bench/transport-programs.ts');

/** The node arguments that run a transport program under `loader`. */
export function programArgv(loader: Loader, args: readonly string[], nodeArgs: readonly string[] = []): string[] {
  return [...nodeArgs, ...loaderArgs(loader), programScript, ...args];
}

let clockTicks: number | undefined;
/** CPU time (user + system, all threads) a process has used so far, in µs, from /proc (NaN elsewhere). */
export function processCpuUs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / clockTicks;
  } catch {
    return Number.NaN;
  }
}

/** A sample with the CPU the peer process (the server) used over the same span. */
export interface PeerSample extends Sample {
  readonly peerCpuUsPerOp: number;
}

/** `timed` (our process) plus the peer's CPU from /proc (10 ms ticks: use samples of a second or more). */
export async function timedWithPeer(count: number, pid: number, body: () => Promise<void>): Promise<PeerSample> {
  const before = processCpuUs(pid);
  const sample = await timed(count, body);
  return { ...sample, peerCpuUsPerOp: (processCpuUs(pid) - before) / count };
}

export const peerCpu = (figures: Figures): number => median(figures.samples.map((s) => (s as PeerSample).peerCpuUsPerOp));

/**
 * Cores kept busy, client + server (median calls/s times CPU per call), as `0.47 + 0.53`. A client and server that
 * overlap their work approach one core each; a total near one core means they take turns (each waits for the
 * other's batch), so calls/s is bounded by the sum of their CPU per call rather than the larger of the two.
 */
export const busyCores = (figures: Figures, serverCpuUsPerCall: number): string =>
  `${fmt((figures.medianOpsPerSec * figures.medianCpuUsPerOp) / 1e6)} + ${fmt((figures.medianOpsPerSec * serverCpuUsPerCall) / 1e6)}`;

/**
 * A transport program in a child process. It prints `@@ <json>` lines for us (the first once it is ready), and
 * takes one-word commands on stdin (http programs only: a stdio program's stdin is its transport).
 */
export class Program {
  readonly pid: number;
  readonly ready: Promise<Record<string, unknown>>;
  private readonly replies: Array<(value: Record<string, unknown>) => void> = [];
  private readonly exited: Promise<void>;

  constructor(readonly child: ChildProcessByStdio<Writable, Readable, null>) {
    this.pid = child.pid ?? -1;
    this.ready = new Promise((resolve) => this.replies.push(resolve));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.startsWith('@@ ')) this.replies.shift()?.(JSON.parse(line.slice(3)) as Record<string, unknown>);
        else process.stdout.write(`${line}\n`);
      }
    });
  }

  static start(loader: Loader, args: readonly string[], nodeArgs: readonly string[] = []): Program {
    return new Program(spawn(process.execPath, programArgv(loader, args, nodeArgs), { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] }));
  }

  command(word: string): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.replies.push(resolve);
      this.child.stdin.write(`${word}\n`);
    });
  }

  /** Ends its stdin (the program then stops) and waits for it to exit. */
  async stop(): Promise<void> {
    this.child.stdin.end();
    await this.exited;
  }
}

/** The stdio floor's client: one JSON line per request, answers matched by id. No checks. */
export class LineClient {
  private buffered = '';
  private lastId = 0;
  private readonly pending = new Map<number, (message: unknown) => void>();

  constructor(private readonly write: (line: string) => void) {}

  receive(chunk: string): void {
    this.buffered += chunk;
    for (let nl = this.buffered.indexOf('\n'); nl >= 0; nl = this.buffered.indexOf('\n')) {
      const message = JSON.parse(this.buffered.slice(0, nl)) as { id: number; result?: unknown };
      this.buffered = this.buffered.slice(nl + 1);
      const resolve = this.pending.get(message.id);
      this.pending.delete(message.id);
      resolve?.(message.result);
    }
  }

  request(method: string, params: object): Promise<unknown> {
    const id = ++this.lastId;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One JSON POST over node:http (keep-alive agent), its whole answer read as text. */
export function postJson(agent: Agent, url: URL, message: object, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body), ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(body);
  });
}

/** The HTTP floor's client: POSTs the JSON-RPC request on a keep-alive agent and parses the JSON answer. */
export function floorHttpClient(url: string, agent = new Agent({ keepAlive: true, maxSockets: 64, scheduling: 'lifo' })): { call(): Promise<unknown>; agent: Agent } {
  const target = new URL(url);
  let lastId = 0;
  return {
    agent,
    async call() {
      const answer = await postJson(agent, target, { jsonrpc: '2.0', id: ++lastId, method: 'tools/call', params: { name: 'echo', arguments: callArgs } });
      return (JSON.parse(answer.body) as { result: unknown }).result;
    },
  };
}

/**
 * The lean HTTP floor's client: what a keep-alive node:http client costs when it does nothing else. One request
 * body encoded once (the floor server echoes its id back, so one id serves every call), the request options made
 * once, the answer's bytes read and dropped: no JSON-RPC, no parsing, no per-call strings. The status is checked,
 * so a refused call is not counted as an answer.
 */
export function leanHttpClient(url: string, agent = new Agent({ keepAlive: true, maxSockets: 64, scheduling: 'lifo' })): { call(): Promise<number>; agent: Agent } {
  const target = new URL(url);
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: callArgs } }));
  const options = {
    method: 'POST',
    agent,
    host: target.hostname,
    port: target.port,
    path: target.pathname,
    headers: { 'content-type': 'application/json', 'content-length': body.length },
  };
  const ignore = (): void => undefined;
  return {
    agent,
    call: () =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(options, (res) => {
          const status = res.statusCode ?? 0;
          res.on('data', ignore);
          res.once('end', () => (status === 200 ? resolve(status) : reject(new Error(`lean floor: HTTP ${status}`))));
          res.once('error', reject);
        });
        req.once('error', reject);
        req.end(body);
      }),
  };
}

/**
 * Node's fetch (undici, under the SDK's HTTP client) adds an abort listener per request to the transport's one
 * AbortSignal and removes it only when the request is garbage collected, so a busy SDK client trips
 * `MaxListenersExceededWarning` over and over. Those are counted (returned by the getter) instead of printed.
 */
export function quietListenerWarnings(): () => number {
  let count = 0;
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'MaxListenersExceededWarning') count++;
    else console.error(`${warning.name}: ${warning.message}`);
  });
  return () => count;
}
