/**
 * `tools/list` with 500 registered tools: CPU per call with 1, 100 and 1,000 sessions, rxmcp against the
 * official SDK 1.x `McpServer`, plus the time to register the 500 tools once. A benchmark, not a test.
 *
 *   npx tsx bench/tools-list-scaling.ts [--loader=tsx|strip]                     both, each in a fresh child
 *   node --import tsx bench/tools-list-scaling.ts --impl=rxmcp|sdk [--tools=500] [--sessions=1,100,1000]
 *        [--calls=50] [--min-calls=20000] [--ping-calls=50] [--min-ping-calls=20000] [--rounds=5] [--warmup=5000]
 *        [--registrations=7]                                                   one implementation
 *
 * In the child: first the registration timing (a fresh server and 500 freshly built tool definitions per
 * repetition, only the registering calls timed). Then one rxmcp server (`createServer`, pageSize 500 so one
 * `tools/list` returns all 500 tools, as the SDK's does) accepting up to 1,000 sessions over memory pairs;
 * the SDK needs one `McpServer` per session, so 1,000 of them, each with the same 500 tools (the zod schema
 * objects shared, so memory stays bounded). Every session is driven by the same raw JSON-RPC client
 * (handshake, then `tools/list` requests; the response object is taken as it arrives, nothing parsed), so the
 * figure is the server's cost plus its in-memory transport. Each configuration (the first 1, 100, 1,000
 * sessions) makes `calls` rounds of one `tools/list` per session (round robin, each awaited), that pass
 * repeated until a sample holds at least `min-calls` calls (only the small configurations repeat), interleaved
 * with the others in rotating order; CPU per call = process.cpuUsage delta / calls, medians over rounds. As a
 * control, the same sessions also make `ping` requests the same way: what touching 1, 100 or 1,000 sessions
 * in turn costs whatever the method, so that growth is not taken for growth of the list's cost.
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { JsonObject, JsonRpcMessage } from '../index.ts';
import { type Figures, type Sample, interleave, timed } from './harness.ts';
import { echoJsonSchema } from './echo-tool.ts';
import { echoZodShape } from './echo-zod.ts';
import { type Loader, argInt, argLoader, argValue, emitResult, fmt, isMain, loaderArgs, median, runChild } from './lib.ts';

export type ListImpl = 'rxmcp' | 'sdk';

export interface Registration {
  readonly label: string;
  readonly medianMs: number;
  readonly firstMs: number;
  readonly samplesMs: readonly number[];
}

export interface ListChildResult {
  readonly impl: ListImpl;
  readonly tools: number;
  readonly callsPerSession: number;
  readonly pingCallsPerSession: number;
  /** The fewest calls one sample holds (passes are repeated until then), tools/list and ping. */
  readonly minCalls: number;
  readonly minPingCalls: number;
  readonly rounds: number;
  /** Keyed by the number of sessions (tools/list) and `ping <n>` (the control). */
  readonly figures: Record<string, Figures>;
  readonly registration: Record<string, Registration>;
  readonly setupSeconds: number;
  /** Size of one tools/list answer as JSON (what a real transport would encode each call). */
  readonly answerBytes: number;
  /** Whether two sessions (and two calls) got the very same result object. */
  readonly sharedResult: boolean;
}

export interface ListScalingResult {
  readonly loader: Loader;
  readonly children: Record<ListImpl, ListChildResult>;
  readonly commands: Record<ListImpl, string>;
}

interface Rpc {
  readonly jsonrpc: '2.0';
  readonly id?: number;
  readonly method?: string;
  readonly params?: JsonObject;
  readonly result?: JsonObject;
  readonly error?: unknown;
}

/** The end of a link the raw client holds. */
interface RawLink {
  send(message: Rpc): unknown;
  listen(receive: (message: Rpc) => void): void;
}

/** A raw JSON-RPC client: a pending map by id, no parsing, no checks beyond the handshake. */
async function rawClient(link: RawLink): Promise<(method: string, params?: JsonObject) => Promise<Rpc>> {
  const pending = new Map<number, (message: Rpc) => void>();
  let lastId = 0;
  link.listen((message) => {
    if (message.id === undefined) return;
    const resolve = pending.get(message.id);
    pending.delete(message.id);
    resolve?.(message);
  });
  const request = (method: string, params?: JsonObject): Promise<Rpc> =>
    new Promise((resolve) => {
      const id = ++lastId;
      pending.set(id, resolve);
      void link.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    });
  const init = await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-client', version: '0.0.0' } });
  if (init.result === undefined) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
  await link.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return request;
}

const serverInfo = { name: 'bench-server', version: '0.0.0' };
const toolName = (i: number): string => `tool_${String(i).padStart(4, '0')}`;
/** Each tool's own description, so no schema is identical to another (no cache can share them). */
const describe = (i: number): string => `Text for tool ${i}`;

type Requester = (method: string) => Promise<Rpc>;

interface ImplSetup {
  /** Registration variants: each builds fresh definitions, then times only the registering. */
  readonly registrations: Record<string, { readonly label: string; run(tools: number): number }>;
  /** Opens `sessions` sessions, each with 500 tools served, and returns a raw requester per session. */
  open(tools: number, sessions: number): Promise<Requester[]>;
}

function msSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function loadImpl(impl: ListImpl): Promise<ImplSetup> {
  if (impl === 'rxmcp') {
    const { createServer } = await import('../index.ts');
    const { createMemoryPair } = await import('../transports/memory/index.ts');
    const handler = (): string => 'ok';
    const registerAll = (defs: ReadonlyArray<{ name: string; inputSchema: JsonObject | z.ZodType }>): ReturnType<typeof createServer> => {
      const server = createServer({ ...serverInfo, pageSize: defs.length });
      for (const def of defs) server.tool(def as { name: string; inputSchema: JsonObject }, handler);
      return server;
    };
    const timedRegistration = (defs: ReadonlyArray<{ name: string; inputSchema: JsonObject | z.ZodType }>): number => {
      const start = process.hrtime.bigint();
      registerAll(defs);
      return msSince(start);
    };
    const jsonDefs = (tools: number) => Array.from({ length: tools }, (_, i) => ({ name: toolName(i), inputSchema: echoJsonSchema(describe(i)) }));
    return {
      registrations: {
        rxmcp: { label: 'rxmcp (JSON Schema)', run: (tools) => timedRegistration(jsonDefs(tools)) },
        rxmcpZod: { label: 'rxmcp (zod 4 schema)', run: (tools) => timedRegistration(Array.from({ length: tools }, (_, i) => ({ name: toolName(i), inputSchema: z.object(echoZodShape(describe(i))) }))) },
      },
      async open(tools, sessions) {
        const server = registerAll(jsonDefs(tools));
        const callers: Requester[] = [];
        for (let s = 0; s < sessions; s++) {
          const [clientEnd, serverEnd] = createMemoryPair();
          server.accept(serverEnd);
          const request = await rawClient({
            send: (message) => clientEnd.send({ payload: message as unknown as JsonRpcMessage }),
            listen: (receive) => void clientEnd.incoming$.subscribe((frame) => frame.type === 'message' && receive(frame.payload as unknown as Rpc)),
          });
          callers.push(request);
        }
        return callers;
      },
    };
  }
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const handler = () => ({ content: [{ type: 'text' as const, text: 'ok' }] });
  return {
    registrations: {
      sdk: {
        label: 'official SDK 1.x McpServer (zod 4)',
        run(tools) {
          const shapes = Array.from({ length: tools }, (_, i) => echoZodShape(describe(i)));
          const start = process.hrtime.bigint();
          const server = new McpServer(serverInfo);
          shapes.forEach((shape, i) => server.registerTool(toolName(i), { inputSchema: shape }, handler));
          return msSince(start);
        },
      },
    },
    async open(tools, sessions) {
      // The same 500 schema objects for every McpServer: one server per session is the SDK's model, but the
      // tool definitions are the application's and would be shared.
      const schemas = Array.from({ length: tools }, (_, i) => z.object(echoZodShape(describe(i))));
      const callers: Requester[] = [];
      for (let s = 0; s < sessions; s++) {
        const server = new McpServer(serverInfo);
        schemas.forEach((schema, i) => server.registerTool(toolName(i), { inputSchema: schema }, handler));
        const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
        await server.connect(serverEnd);
        const request = await rawClient({
          send: (message) => clientEnd.send(message as Parameters<typeof clientEnd.send>[0]),
          listen: (receive) => (clientEnd.onmessage = (message) => receive(message as unknown as Rpc)),
        });
        callers.push(request);
      }
      return callers;
    },
  };
}

export async function measureListChild(impl: ListImpl, options: { tools: number; sessions: readonly number[]; calls: number; minCalls: number; pingCalls: number; minPingCalls: number; rounds: number; warmup: number; registrations: number }): Promise<ListChildResult> {
  const setup = await loadImpl(impl);
  const registration: Record<string, Registration> = {};
  for (const [name, variant] of Object.entries(setup.registrations)) {
    const samplesMs = Array.from({ length: options.registrations }, () => variant.run(options.tools));
    registration[name] = { label: variant.label, medianMs: median(samplesMs), firstMs: samplesMs[0] ?? NaN, samplesMs };
    console.log(`  [${impl}] register ${options.tools} tools, ${variant.label}: first ${fmt(samplesMs[0] ?? NaN)} ms, median ${fmt(median(samplesMs))} ms`);
  }
  const setupStart = process.hrtime.bigint();
  const callers = await setup.open(options.tools, Math.max(...options.sessions));
  const setupSeconds = msSince(setupStart) / 1000;
  const list = (caller: Requester | undefined): Promise<Rpc> => (caller as Requester)('tools/list');
  const first = await list(callers[0]);
  // Built once and cached: two sessions get the very same result object (the SDK builds one per call).
  const sharedResult = first.result === (await list(callers.at(-1))).result && first.result === (await list(callers[0])).result;
  const listed = (first.result?.['tools'] as unknown[] | undefined)?.length;
  if (listed !== options.tools || first.result?.['nextCursor'] !== undefined) throw new Error(`${impl}: tools/list returned ${String(listed)} tools: ${JSON.stringify(first).slice(0, 300)}`);
  console.log(`  [${impl}] ${callers.length} sessions open in ${fmt(setupSeconds)} s; each tools/list returns ${listed} tools; one result object shared by all sessions: ${sharedResult}`);
  // Warm-up: every session lists once, then the first session `warmup` more times.
  for (const caller of callers) await list(caller);
  for (let i = 0; i < options.warmup; i++) await list(callers[0]);
  for (let i = 0; i < options.pingCalls; i++) for (const caller of callers) await caller('ping');
  // Each configuration lists, and pings as a control: what touching that many sessions in turn costs anyway.
  const configs = options.sessions.flatMap((n) => [
    { name: String(n), label: `tools/list, ${n} session${n === 1 ? '' : 's'}`, n, method: 'tools/list', calls: options.calls, min: options.minCalls },
    { name: `ping ${n}`, label: `ping, ${n} session${n === 1 ? '' : 's'}`, n, method: 'ping', calls: options.pingCalls, min: options.minPingCalls },
  ]);
  console.log(`  [${impl}] ${options.rounds} rounds; per configuration, ${options.calls} tools/list (or ${options.pingCalls} ping) per session (round robin, each awaited)`);
  const figures = await interleave(configs, options.rounds, (config): Promise<Sample> => {
    const used = callers.slice(0, config.n);
    const passes = Math.max(1, Math.ceil(config.min / (config.n * config.calls)));
    return timed(passes * config.n * config.calls, async () => {
      for (let pass = 0; pass < passes; pass++) for (let rep = 0; rep < config.calls; rep++) for (const caller of used) await caller(config.method);
    });
  }, 'call');
  return { impl, tools: options.tools, callsPerSession: options.calls, rounds: options.rounds, pingCallsPerSession: options.pingCalls, minCalls: options.minCalls, minPingCalls: options.minPingCalls, figures, registration, setupSeconds, answerBytes: JSON.stringify(first).length, sharedResult };
}

const thisScript = fileURLToPath(import.meta.url);

export interface ListScalingOptions {
  /** tools/list calls per session per configuration and round, rounds, warm-up calls: per implementation. */
  readonly calls: Record<ListImpl, number>;
  readonly rounds: Record<ListImpl, number>;
  readonly warmup: Record<ListImpl, number>;
  /** The fewest tools/list calls a sample holds (small configurations repeat their pass). */
  readonly minCalls: Record<ListImpl, number>;
  readonly tools?: number;
  readonly sessions?: string;
}

export const defaultListOptions: ListScalingOptions = { calls: { rxmcp: 50, sdk: 2 }, rounds: { rxmcp: 5, sdk: 3 }, warmup: { rxmcp: 5000, sdk: 20 }, minCalls: { rxmcp: 20_000, sdk: 1 } };

/** Both implementations, each in a fresh child process. */
export async function runListScalingBench(loader: Loader, options: ListScalingOptions = defaultListOptions): Promise<ListScalingResult> {
  const children: Partial<Record<ListImpl, ListChildResult>> = {};
  const commands: Partial<Record<ListImpl, string>> = {};
  for (const impl of ['rxmcp', 'sdk'] as const) {
    const args = [`--impl=${impl}`, `--calls=${options.calls[impl]}`, `--rounds=${options.rounds[impl]}`, `--warmup=${options.warmup[impl]}`, `--min-calls=${options.minCalls[impl]}`, `--tools=${options.tools ?? 500}`, `--sessions=${options.sessions ?? '1,100,1000'}`];
    const run = await runChild(['--max-old-space-size=4096', ...loaderArgs(loader)], thisScript, args);
    children[impl] = run.result as ListChildResult;
    commands[impl] = run.command;
  }
  return { loader, children: children as Record<ListImpl, ListChildResult>, commands: commands as Record<ListImpl, string> };
}

if (isMain(import.meta.url)) {
  const impl = argValue('impl');
  const sessions = (argValue('sessions') ?? '1,100,1000').split(',').map((s) => Number.parseInt(s, 10));
  if (impl === 'rxmcp' || impl === 'sdk') {
    emitResult(await measureListChild(impl, { tools: argInt('tools', 500), sessions, calls: argInt('calls', defaultListOptions.calls[impl]), minCalls: argInt('min-calls', defaultListOptions.minCalls[impl]), pingCalls: argInt('ping-calls', 50), minPingCalls: argInt('min-ping-calls', 20_000), rounds: argInt('rounds', defaultListOptions.rounds[impl]), warmup: argInt('warmup', defaultListOptions.warmup[impl]), registrations: argInt('registrations', 7) }));
  } else if (impl === undefined) {
    emitResult(await runListScalingBench(argLoader()));
  } else {
    throw new RangeError(`--impl must be rxmcp or sdk, got ${impl}`);
  }
}
