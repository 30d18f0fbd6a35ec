/**
 * What a load run is asked to do (the options of `runLoad`, the flags of `rxmcp load`, a workload file), and
 * the one place they are checked and given their defaults. A mistake throws a {@link LoadOptionsError} that
 * names the option, echoes the value and says what would be right.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { JsonObject } from '../core/jsonrpc.ts';
import type { Transport } from '../core/transport.ts';

/** Where the load goes. */
export type LoadTarget =
  /** A Streamable HTTP endpoint (either era; an HTTP+SSE server of 2024-11-05 is found too). */
  | { readonly url: string; readonly headers?: Readonly<Record<string, string>> }
  /** A stdio server this run starts: one process per session, restarted after a `kill` fault. */
  | {
      readonly command: string;
      readonly args?: readonly string[];
      readonly cwd?: string;
      readonly env?: Readonly<Record<string, string>>;
      /** The server's stderr (default `ignore`: its words would garble the live status). */
      readonly stderr?: 'inherit' | 'ignore';
    }
  /** An MCP server on NATS (needs nats.js v3, @nats-io/transport-node): a server list or a connection of your own (not closed). */
  | { readonly nats: string | NatsConnection; readonly name: string; readonly prefix?: string }
  /** Any transport: one is made per session. */
  | { readonly connect: () => Promise<Transport>; readonly label: string };

/** One kind of request in the mix, drawn with probability weight / (sum of weights). */
export type Operation =
  | {
      readonly method: 'tools/call';
      readonly tool: string;
      /** String values may hold templates: {{token}}, {{seq}}, {{session}}, {{random:N}}, {{pad:N}}. */
      readonly arguments?: JsonObject;
      /** The text the answer must hold exactly (templates filled); default: it contains the call's {{token}}. */
      readonly expect?: string;
      readonly weight?: number;
    }
  | { readonly method: 'tools/list'; readonly weight?: number }
  | { readonly method: 'resources/read'; readonly uri: string; readonly expect?: string; readonly weight?: number }
  | { readonly method: 'prompts/get'; readonly prompt: string; readonly arguments?: Readonly<Record<string, string>>; readonly expect?: string; readonly weight?: number }
  | { readonly method: 'ping'; readonly weight?: number };

/** One step of a stepped run: an open-loop rate or a closed-loop concurrency, for a time. */
export interface LoadStep {
  readonly rate?: number;
  readonly concurrency?: number;
  readonly durationMs: number;
}

/** A fault the run applies at a time (from the start, warm-up included). */
export type Fault =
  /** SIGKILL the server process; a stdio child is started again after `restartAfterMs` (default 0). */
  | { readonly kind: 'kill'; readonly atMs: number; readonly restartAfterMs?: number }
  /** SIGSTOP the server process, SIGCONT it `forMs` later. */
  | { readonly kind: 'pause'; readonly atMs: number; readonly forMs: number }
  /** Drop every connection from this side at once; the sessions connect again. */
  | { readonly kind: 'drop'; readonly atMs: number };

export type EraChoice = 'auto' | 'legacy' | 'modern' | 'both';

export interface LoadOptions {
  readonly target: LoadTarget;
  /** `auto` (default) asks the server; `both` runs a legacy and a modern lane side by side, each with the whole workload. */
  readonly era?: EraChoice;
  /** The measured part (default 10 s; with `steps`, their sum). */
  readonly durationMs?: number;
  /** Before the measured part, at the first rate, counted apart (default 0). */
  readonly warmupMs?: number;
  /** From nothing to the first rate (or concurrency) over this long, from the start (default 0). */
  readonly rampMs?: number;
  /** Open loop: calls per second sent on schedule whatever the answers (default 100 unless `concurrency`). */
  readonly rate?: number;
  /** Closed loop: this many calls in flight, the next sent when one is answered. */
  readonly concurrency?: number;
  /** Stepped rates (or concurrencies), one after the other. */
  readonly steps?: readonly LoadStep[];
  /** Sessions (connections) to spread the calls over (default 1). */
  readonly sessions?: number;
  /** Open the sessions at this many per second during the run (default: all before it starts). */
  readonly sessionRate?: number;
  /** Replace a session after this many calls, or after this long: churned sessions (default: kept). */
  readonly churn?: { readonly calls?: number; readonly afterMs?: number };
  /** The mix (default: the server's `echo` tool with a token in its first string argument). */
  readonly operations?: readonly Operation[];
  /** A call without an answer this long is `hung` (default 10 s). */
  readonly hangMs?: number;
  /** Open loop: calls in flight at most; past it sending waits (and is late: it shows in the latency). Default 10,000. */
  readonly maxInFlight?: number;
  readonly faults?: readonly Fault[];
  /** The server's process (its CPU and memory are read from /proc; kill and pause faults signal it). */
  readonly pid?: number;
  /** How long opening a session may take (default 30 s). */
  readonly connectTimeoutMs?: number;
  /** The width of a point of the time series and of a status update (default 1000 ms). */
  readonly intervalMs?: number;
  /** Called once per interval with the figures of the run so far. */
  readonly onStatus?: (status: LiveStatus) => void;
  /** Called with what happens to sessions and faults, one line each. */
  readonly onEvent?: (line: string) => void;
  /** Aborting ends the run early; the result says it was interrupted. */
  readonly signal?: AbortSignal;
}

/** What {@link LoadOptions.onStatus} is told each interval. */
export interface LiveStatus {
  /** Milliseconds since the start (warm-up included). */
  readonly atMs: number;
  readonly phase: 'warm-up' | 'measuring' | 'draining';
  /** Calls answered per second over the last interval. */
  readonly rate: number;
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
  readonly sent: number;
  readonly ok: number;
  readonly errors: number;
  readonly wrong: number;
  readonly hung: number;
  readonly inFlight: number;
  readonly sessionsUp: number;
  /** The server's CPU (1 = one core) and resident memory, when its process is known. */
  readonly serverCpu: number | undefined;
  readonly serverRss: number | undefined;
  /** This process's CPU over the interval (1 = one core). */
  readonly testerCpu: number;
  /** Whether this process, not the server, held the run back over the interval. */
  readonly testerBound: boolean;
}

export class LoadOptionsError extends RangeError {
  override readonly name = 'LoadOptionsError';
}

export interface ResolvedOptions {
  readonly target: LoadTarget;
  readonly eras: readonly ('auto' | 'legacy' | 'modern')[];
  readonly mode: 'open' | 'closed';
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly rampMs: number;
  /** The steps over the measured part (one when not stepped); the warm-up runs at the first. */
  readonly steps: readonly { readonly level: number; readonly durationMs: number }[];
  readonly sessions: number;
  readonly sessionRate: number | undefined;
  readonly churnCalls: number | undefined;
  readonly churnMs: number | undefined;
  readonly operations: readonly Operation[] | undefined;
  readonly hangMs: number;
  readonly maxInFlight: number;
  readonly faults: readonly Fault[];
  readonly pid: number | undefined;
  readonly connectTimeoutMs: number;
  readonly intervalMs: number;
}

const positive = (name: string, value: number | undefined, integer: boolean): void => {
  if (value === undefined) return;
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new LoadOptionsError(`${name} must be a positive ${integer ? 'integer' : 'number'}, got ${String(value)}`);
  }
};
const notNegative = (name: string, value: number | undefined): void => {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0)) throw new LoadOptionsError(`${name} must be zero or more, got ${String(value)}`);
};

/** Checks `options` and fills in the defaults. */
export function resolveOptions(options: LoadOptions): ResolvedOptions {
  const { rate, concurrency, steps } = options;
  positive('rate', rate, false);
  positive('concurrency', concurrency, true);
  positive('sessions', options.sessions, true);
  positive('sessionRate', options.sessionRate, false);
  positive('hangMs', options.hangMs, false);
  positive('maxInFlight', options.maxInFlight, true);
  positive('connectTimeoutMs', options.connectTimeoutMs, false);
  positive('intervalMs', options.intervalMs, false);
  positive('durationMs', options.durationMs, false);
  positive('churn.calls', options.churn?.calls, true);
  positive('churn.afterMs', options.churn?.afterMs, false);
  notNegative('warmupMs', options.warmupMs);
  notNegative('rampMs', options.rampMs);
  if (rate !== undefined && concurrency !== undefined) throw new LoadOptionsError('give rate (open loop) or concurrency (closed loop), not both');
  if (options.pid !== undefined && !(Number.isSafeInteger(options.pid) && options.pid > 1)) throw new LoadOptionsError(`pid must be a process id, got ${String(options.pid)}`);
  let mode: 'open' | 'closed' = concurrency !== undefined ? 'closed' : 'open';
  let resolvedSteps: { level: number; durationMs: number }[];
  if (steps !== undefined && steps.length > 0) {
    if (rate !== undefined || concurrency !== undefined) throw new LoadOptionsError('steps give their own rate or concurrency: leave rate and concurrency out');
    if (options.durationMs !== undefined) throw new LoadOptionsError('steps give their own durations: leave duration out');
    const open = steps.every((step) => step.rate !== undefined && step.concurrency === undefined);
    const closed = steps.every((step) => step.concurrency !== undefined && step.rate === undefined);
    if (!open && !closed) throw new LoadOptionsError('every step gives a rate (open loop), or every step a concurrency (closed loop), one of the two');
    mode = open ? 'open' : 'closed';
    resolvedSteps = steps.map((step, index) => {
      positive(`steps[${index}].${open ? 'rate' : 'concurrency'}`, open ? step.rate : step.concurrency, !open);
      positive(`steps[${index}].durationMs`, step.durationMs, false);
      return { level: (open ? step.rate : step.concurrency) ?? 0, durationMs: step.durationMs };
    });
  } else {
    resolvedSteps = [{ level: mode === 'closed' ? (concurrency ?? 1) : (rate ?? 100), durationMs: options.durationMs ?? 10_000 }];
  }
  const durationMs = resolvedSteps.reduce((total, step) => total + step.durationMs, 0);
  const warmupMs = options.warmupMs ?? 0;
  const era = options.era ?? 'auto';
  if (!['auto', 'legacy', 'modern', 'both'].includes(era)) throw new LoadOptionsError(`era must be auto, legacy, modern or both, got ${JSON.stringify(era)}`);
  const pid = options.pid;
  const target = options.target;
  const faults = [...(options.faults ?? [])].sort((a, b) => a.atMs - b.atMs);
  for (const fault of faults) {
    notNegative(`a ${fault.kind} fault's atMs`, fault.atMs);
    if (fault.atMs > warmupMs + durationMs) throw new LoadOptionsError(`a ${fault.kind} fault at ${fault.atMs} ms comes after the run's end (${warmupMs + durationMs} ms)`);
    if (fault.kind === 'pause') positive('a pause fault\'s forMs', fault.forMs, false);
    if (fault.kind === 'kill') notNegative('a kill fault\'s restartAfterMs', fault.restartAfterMs);
    if ((fault.kind === 'kill' || fault.kind === 'pause') && pid === undefined && !('command' in target)) {
      throw new LoadOptionsError(`a ${fault.kind} fault needs the server's process: a stdio target (-- <command>) or its pid`);
    }
  }
  for (const [index, operation] of (options.operations ?? []).entries()) checkOperation(operation, index, era);
  if (options.operations !== undefined && options.operations.length === 0) throw new LoadOptionsError('operations is empty: give at least one, or leave it out for the echo tool');
  return {
    target,
    eras: era === 'both' ? ['legacy', 'modern'] : [era],
    mode,
    warmupMs,
    durationMs,
    rampMs: options.rampMs ?? 0,
    steps: resolvedSteps,
    sessions: options.sessions ?? 1,
    sessionRate: options.sessionRate,
    churnCalls: options.churn?.calls,
    churnMs: options.churn?.afterMs,
    operations: options.operations,
    hangMs: options.hangMs ?? 10_000,
    maxInFlight: options.maxInFlight ?? 10_000,
    faults,
    pid,
    connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
    intervalMs: options.intervalMs ?? 1000,
  };
}

function checkOperation(operation: Operation, index: number, era: EraChoice): void {
  const where = `operations[${index}]`;
  const weight = operation.weight;
  if (weight !== undefined && !(Number.isFinite(weight) && weight > 0)) throw new LoadOptionsError(`${where}.weight must be a positive number, got ${String(weight)}`);
  switch (operation.method) {
    case 'tools/call':
      if (typeof operation.tool !== 'string' || operation.tool === '') throw new LoadOptionsError(`${where} (tools/call) needs the tool's name`);
      return;
    case 'resources/read':
      if (typeof operation.uri !== 'string' || operation.uri === '') throw new LoadOptionsError(`${where} (resources/read) needs a uri`);
      return;
    case 'prompts/get':
      if (typeof operation.prompt !== 'string' || operation.prompt === '') throw new LoadOptionsError(`${where} (prompts/get) needs the prompt's name`);
      return;
    case 'ping':
      if (era === 'modern' || era === 'both') throw new LoadOptionsError(`${where}: ping does not exist in revision 2026-07-28; leave it out of a modern run (or use tools/list)`);
      return;
    case 'tools/list':
      return;
    default:
      throw new LoadOptionsError(`${where}.method must be tools/call, tools/list, resources/read, prompts/get or ping, got ${JSON.stringify((operation as { method?: unknown }).method)}`);
  }
}

/** A target in words, for reports. */
export function targetLabel(target: LoadTarget): string {
  if ('url' in target) return target.url;
  if ('command' in target) return ['--', target.command, ...(target.args ?? [])].join(' ');
  if ('nats' in target) return `nats ${typeof target.nats === 'string' ? target.nats : 'connection'} / ${target.name}`;
  return target.label;
}
