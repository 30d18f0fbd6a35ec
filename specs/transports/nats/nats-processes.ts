/**
 * Support for the NATS specs that run real server processes (specs/support/nats-fixtures/server-process.ts):
 * starting them, sending them commands, SIGKILLing one by its pid, and the clients that talk to them.
 * Every child is tracked; `stopAll()` ends, by pid, the ones still running. Every wait here is bounded.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type NatsConnection, RequestError, connect } from '@nats-io/transport-node';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import type { CallToolResult } from '../../../core/protocol/index.ts';
import type { Transport } from '../../../core/transport.ts';
import { createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import { createNatsClientTransport, serverSubjects } from '../../../transports/nats/index.ts';
import { programArgs } from '../../support/spec-program.ts';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../../support/nats-fixtures/server-process.ts', import.meta.url));
/**
 * tsx compiles the fixture on the fly: a start may take a few seconds on a busy machine, and over 20 s when
 * several start at once on a heavily loaded one.
 */
const START_MS = 45_000;

export interface ServerProcess {
  readonly pid: number;
  /** The binding's id of this process (its ping subject, its session records' owner). */
  readonly processId: string;
  readonly exited: Promise<void>;
  /** Sends one stdin command and waits for its `ok`. */
  command(line: string, ms?: number): Promise<void>;
  /** Whether it exited. */
  dead(): boolean;
  /** SIGKILLs it (by its pid) and resolves on its 'exit' event. */
  kill(): Promise<void>;
  /** What it wrote (for failure messages). */
  readonly output: () => string;
  /** Its stdout lines so far. */
  readonly lines: () => readonly string[];
}

const running = new Map<number, ChildProcess>();

/** Another fixture than server-process.ts (same `ready`/`ok` protocol), with its extra arguments. */
export interface FixtureChoice {
  readonly fixture: string;
  readonly args?: readonly string[];
  /** How long it may take to be ready (default 20 s). */
  readonly startMs?: number;
}

export async function startServerProcess(url: string, name: string, env: Readonly<Record<string, string>> = {}, choice?: FixtureChoice): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...programArgs(choice?.fixture ?? FIXTURE), url, name, ...(choice?.args ?? [])], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('the fixture server process did not start');
  running.set(pid, child);
  let output = '';
  let stdout = '';
  const lines: string[] = [];
  const waiters = new Set<{ readonly line: string; readonly resolve: () => void }>();
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running.delete(pid);
      resolve();
    }),
  );
  // Writing to a process that just died must not crash the spec: the command's own timeout reports it.
  child.stdin.on('error', () => undefined);
  child.stderr.on('data', (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-8000)));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
      stdout += chunk.toString();
      let newline: number;
      while ((newline = stdout.indexOf('\n')) >= 0) {
        const line = stdout.slice(0, newline).trim();
        stdout = stdout.slice(newline + 1);
        lines.push(line);
        const words = line.split(' ');
        if (words[0] === 'ready' && words[2] !== undefined) resolve(words[2]);
        for (const waiter of waiters) if (line === `ok ${waiter.line}`) waiter.resolve();
      }
    });
    void exited.then(() => reject(new Error(`the fixture server process ${pid} exited while starting:\n${output}`)));
  });
  let timer: NodeJS.Timeout | undefined;
  const processId = await Promise.race([
    ready,
    new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`the fixture server process ${pid} was not ready within ${choice?.startMs ?? START_MS} ms:\n${output}`)), choice?.startMs ?? START_MS))),
  ]).finally(() => clearTimeout(timer));
  return {
    pid,
    processId,
    exited,
    output: () => output,
    lines: () => lines,
    dead: () => !running.has(pid),
    command(line, ms = 5000) {
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          line,
          resolve: () => {
            clearTimeout(timeout);
            waiters.delete(waiter);
            resolve();
          },
        };
        const timeout = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`process ${pid} did not do "${line}" within ${ms} ms:\n${output}`));
        }, ms);
        waiters.add(waiter);
        child.stdin.write(`${line}\n`);
      });
    },
    async kill() {
      if (running.has(pid)) signal(pid);
      await exited;
    },
  };
}

/** SIGKILL by pid; a process that is already gone is fine. */
function signal(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Exited meanwhile.
  }
}

/** SIGKILLs, by pid, every fixture process still running and waits (at most 5 s) for their exit. */
export async function stopAll(): Promise<void> {
  const children = [...running.values()];
  const gone = children.map((child) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()))));
  for (const child of children) if (child.pid !== undefined) signal(child.pid);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(gone), new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
  clearTimeout(timer);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A NATS connection that reconnects forever, quickly (the server may be killed and restarted). Several URLs
 * (a cluster's nodes) are tried in the order given.
 */
export function natsConnection(url: string | readonly string[], label: string): Promise<NatsConnection> {
  const servers = typeof url === 'string' ? url : [...url];
  return connect({ servers, noRandomize: Array.isArray(servers) && servers.length > 1, name: label, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
}

export interface NatsClient {
  readonly session: ClientSession;
  readonly transport: Transport & { readonly sessionId: string | undefined };
  /** The methods of the requests the client sent, in order (a spy on the transport). */
  readonly sent: string[];
}

/** A client of `name` over NATS whose transport records every request method it sends. */
export async function connectClient(connection: NatsConnection, name: string, era: 'legacy' | 'modern', silenceMs: number, reconnectWaitMs?: number): Promise<NatsClient> {
  const transport = createNatsClientTransport({ connection, name, silenceMs, ...(reconnectWaitMs === undefined ? {} : { reconnectWaitMs }) });
  const sent: string[] = [];
  const spy: Transport & { readonly sessionId: string | undefined } = {
    kind: transport.kind,
    ...(transport.remote === undefined ? {} : { remote: transport.remote }),
    incoming$: transport.incoming$,
    get sessionId() {
      return transport.sessionId;
    },
    send(frame) {
      const messages = Array.isArray(frame.payload) ? (frame.payload as readonly unknown[]) : [frame.payload];
      for (const message of messages) {
        const method = (message as { method?: unknown; id?: unknown } | null)?.method;
        if (typeof method === 'string' && (message as { id?: unknown }).id !== undefined) sent.push(method);
      }
      return transport.send(frame);
    },
    close: (reason) => transport.close(reason),
  };
  const session = await createClient({ name: `nats-spec-${era}`, version: '1.0.0', era }).connect(spy);
  return { session, transport: spy, sent };
}

/** The JSON a fixture tool answered (its first text content). */
export function answerOf(result: CallToolResult): { readonly pid: number; readonly [key: string]: unknown } {
  const first = result.content[0];
  if (first === undefined || first.type !== 'text') throw new Error(`not a text answer: ${JSON.stringify(result)}`);
  return JSON.parse(first.text) as { readonly pid: number };
}

export type Outcome =
  | { readonly ok: true; readonly pid: number; readonly ms: number; readonly sentAt: number }
  | { readonly ok: false; readonly error: unknown; readonly code: string; readonly ms: number; readonly sentAt: number };

/** One tool call, timed: never rejects; `code` is the LocalError code (or the WireError's number). */
export async function timedCall(session: ClientSession, tool: string, args: JsonObject, timeoutMs: number): Promise<Outcome> {
  const sentAt = Date.now();
  try {
    const result = await session.callTool(tool, args, { timeoutMs });
    if (result.isError === true) return { ok: false, error: result, code: 'ToolError', ms: Date.now() - sentAt, sentAt };
    return { ok: true, pid: answerOf(result).pid, ms: Date.now() - sentAt, sentAt };
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    return { ok: false, error, code: typeof code === 'string' || typeof code === 'number' ? String(code) : 'unknown', ms: Date.now() - sentAt, sentAt };
  }
}

export function describeOutcome(outcome: Outcome): string {
  return outcome.ok ? `ok pid ${outcome.pid} in ${outcome.ms} ms` : `${outcome.code} in ${outcome.ms} ms: ${outcome.error instanceof Error ? outcome.error.message : JSON.stringify(outcome.error)}`;
}

export interface Load {
  /** Every finished call, in the order they finished. */
  readonly outcomes: Outcome[];
  /** Calls started so far. */
  readonly started: () => number;
  /** No more calls start; `done` resolves once the running ones finished. */
  stop(): void;
  readonly done: Promise<void>;
}

/**
 * `concurrency` workers, each calling `call` again as soon as its last call finished, until `stop()`, until
 * `maxCalls` calls started, or until `maxMs` passed, whichever comes first.
 */
/** Pause of a load worker after a failed call. */
const FAILURE_BACKOFF_MS = 50;

export function startLoad(concurrency: number, maxCalls: number, maxMs: number, call: (n: number) => Promise<Outcome>): Load {
  const outcomes: Outcome[] = [];
  const deadline = Date.now() + maxMs;
  let started = 0;
  let stopped = false;
  const worker = async (): Promise<void> => {
    while (!stopped && started < maxCalls && Date.now() < deadline) {
      const n = started++;
      const outcome = await call(n);
      outcomes.push(outcome);
      // A failed call backs off a little, as a real client would: calls that fail at once (NATS down) must not
      // use up the whole budget of the load before the outage ends.
      if (!outcome.ok) await sleep(FAILURE_BACKOFF_MS);
    }
  };
  const done = Promise.all(Array.from({ length: concurrency }, worker)).then(() => undefined);
  return { outcomes, started: () => started, stop: () => void (stopped = true), done };
}

/** Polls `check` every 20 ms until it holds; throws after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(20);
  }
}

/**
 * Waits until nats-server itself has dropped a dead process: its ping subject has no responders. (The child's
 * 'exit' event and nats-server reading the closed socket are two different processes' events.)
 */
export async function awaitGoneFromNats(connection: NatsConnection, name: string, processId: string, ms = 2000): Promise<void> {
  const subject = serverSubjects('mcp', name).ping(processId);
  await until(async () => {
    try {
      await connection.request(subject, new Uint8Array(0), { timeout: 200 });
      return false;
    } catch (error) {
      return error instanceof RequestError && error.isNoResponders();
    }
  }, `process ${processId} gone from nats-server`, ms);
}
