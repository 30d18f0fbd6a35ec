/**
 * In-memory `tools/call` of a small echo tool, rxmcp against the official SDK 1.x `McpServer`, the official SDK 2.x
 * and tmcp, with a raw JSON-RPC echo over queueMicrotask as the floor. A benchmark, not a test: it reports, never asserts.
 *
 *   node --import tsx bench/tools-call.ts [--rounds=7] [--count=20000] [--warmup=5000] [--window=64] [--no-suite]
 *   node --cpu-prof --cpu-prof-dir=.tmp --import tsx bench/tools-call.ts --profile=rxmcp [--count=300000] [--window=1]
 *        [--source-maps=.tmp/maps.json]   then: npx tsx bench/cpuprofile-top.ts .tmp/<file>.cpuprofile --maps=.tmp/maps.json
 *   --interceptors=N registers N pass-through interceptors (`(request, next) => next(request)`) on the rxmcp servers,
 *   and --client-interceptors=N on the rxmcp clients (default 0: the plain path), to measure what they cost;
 *   --interceptor-kind=map makes the server's ones compose an operator (`next(request).pipe(map(...))`), which
 *   adapts the handler's output to events and back instead of passing it through.
 *
 * The tool takes { text: string, count: integer >= 0, upper: boolean }, all required, and answers one text
 * block. rxmcp: `createServer().tool(...)` with the schema as JSON Schema (its native path, compiled by Ajv)
 * and again as a zod 4 schema (Standard Schema, validated by zod), each served to `createClient().connect()`
 * over `createMemoryPair()`. SDK: `McpServer.registerTool` with the same zod 4 shape (SDK 1.x accepts zod 4)
 * and `Client` over `InMemoryTransport`. SDK 2.x: `McpServer` (`@modelcontextprotocol/server`) with the same zod 4
 * schema, `Client` (`@modelcontextprotocol/client`, its default legacy era: the initialize handshake) over the 2.x
 * `InMemoryTransport.createLinkedPair()`. tmcp ships no client and no in-memory transport: its `McpServer` (zod
 * adapter, same schema) is served by `serveTmcpOn` (bench/contenders-servers.ts: `server.receive` on the server end
 * of rxmcp's `createMemoryPair()`) to the rxmcp client, so its figure is tmcp's server plus rxmcp's client and link.
 * Every contender is one connected pair, set up once and checked to
 * answer the echo and to reject a negative count. Two loads: sequential (await each call) and a window of
 * `--window` calls in flight, refilled as each completes. Same loop as ping-roundtrip.ts: interleaved rounds,
 * rotating order, medians of calls/s (wall clock) and CPU us per call (process.cpuUsage), no forced gc.
 */
import { Client as Sdk2Client, InMemoryTransport as Sdk2InMemoryTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { map } from 'rxjs';
import { z } from 'zod';
import { createClient, createServer, type JsonObject } from '../index.ts';
import { createMemoryPair } from '../transports/memory/index.ts';
import { type Figures, type Op, type Sample, type SuiteFigure, interleave, runSuite, sequential, timed, windowed } from './harness.ts';
import { argInt, argValue, emitResult, fmt, hasFlag, isMain } from './lib.ts';
import { newSdk2Server, newTmcpServer, serveTmcpOn } from './contenders-servers.ts';
import { type CallResult, callArgs, checkEcho, clientInfo, echo, echoJsonSchema, serverInfo } from './echo-tool.ts';
import { echoZodShape } from './echo-zod.ts';
import { dumpSourceMaps } from './source-maps.ts';

export type CallContender = 'rxmcp' | 'rxmcpModern' | 'rxmcpZod' | 'sdk' | 'sdk2' | 'tmcp' | 'floor';
export const callContenders: readonly CallContender[] = ['rxmcp', 'rxmcpModern', 'rxmcpZod', 'sdk', 'sdk2', 'tmcp', 'floor'];

interface Contender extends Op<CallContender> {
  close(): Promise<void>;
}

export interface ToolsCallResult {
  readonly rounds: number;
  readonly count: number;
  readonly warmup: number;
  readonly window: number;
  readonly sequential: Record<CallContender, Figures>;
  readonly windowed: Record<CallContender, Figures>;
  /** rxmcp (JSON Schema) / SDK 1.x, CPU us per call. */
  readonly cpuRatioSequential: number;
  readonly cpuRatioWindowed: number;
  /** rxmcp in the modern era (2026-07-28) / the legacy era, CPU us per call, both JSON Schema, same run. */
  readonly modernRatioSequential: number;
  readonly modernRatioWindowed: number;
  readonly suite: { readonly callsPerCycle: number; readonly figures: Record<string, SuiteFigure> } | undefined;
}

/** A count option that may be 0 (the default). */
function countArg(name: string): number {
  const raw = argValue(name);
  const value = raw === undefined ? 0 : Number.parseInt(raw, 10);
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`--${name} must be a whole number, got ${raw}`);
  return value;
}

async function rxmcpContender(schema: 'json' | 'zod', era: 'legacy' | 'modern' = 'legacy'): Promise<Contender> {
  const server = createServer(serverInfo);
  if (schema === 'json') server.tool({ name: 'echo', inputSchema: echoJsonSchema() }, (a) => echo(a as unknown as Parameters<typeof echo>[0]));
  else server.tool({ name: 'echo', inputSchema: z.object(echoZodShape()) }, echo);
  const mapping = argValue('interceptor-kind') === 'map';
  for (let index = 0; index < countArg('interceptors'); index++) server.use(mapping ? (request, next) => next(request).pipe(map((event) => event)) : (request, next) => next(request));
  const [clientEnd, serverEnd] = createMemoryPair();
  server.accept(serverEnd);
  const rxmcpClient = createClient({ ...clientInfo, era });
  for (let index = 0; index < countArg('client-interceptors'); index++) rxmcpClient.use((request, next) => next(request));
  const client = await rxmcpClient.connect(clientEnd);
  const call = (a: object): Promise<CallResult> => client.callTool('echo', a as JsonObject);
  await checkEcho(`rxmcp (${schema}, ${era})`, call);
  if (era === 'modern') {
    if (client.session.era !== 'modern') throw new Error(`rxmcpModern: the client speaks the ${client.session.era} era, not 2026-07-28`);
    return { name: 'rxmcpModern', label: "rxmcp (JSON Schema, era 'modern': 2026-07-28)", run: () => client.callTool('echo', callArgs), close: async () => { await client.close(); await server.close(); } };
  }
  return {
    name: schema === 'json' ? 'rxmcp' : 'rxmcpZod',
    label: schema === 'json' ? 'rxmcp (JSON Schema)' : 'rxmcp (zod 4 schema)',
    run: () => client.callTool('echo', callArgs),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

async function sdkContender(): Promise<Contender> {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const server = new McpServer(serverInfo);
  server.registerTool('echo', { inputSchema: echoZodShape() }, echo);
  await server.connect(serverEnd);
  const client = new Client(clientInfo);
  await client.connect(clientEnd);
  const request = { name: 'echo', arguments: callArgs };
  await checkEcho('sdk', (a) => client.callTool({ name: 'echo', arguments: a as Record<string, unknown> }) as Promise<CallResult>);
  return {
    name: 'sdk',
    label: 'official SDK 1.x McpServer (zod 4)',
    run: () => client.callTool(request),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

async function sdk2Contender(): Promise<Contender> {
  const [clientEnd, serverEnd] = Sdk2InMemoryTransport.createLinkedPair();
  const server = newSdk2Server();
  await server.connect(serverEnd);
  const client = new Sdk2Client(clientInfo);
  await client.connect(clientEnd);
  if (client.getProtocolEra() !== 'legacy') throw new Error(`sdk2: the client speaks the ${String(client.getProtocolEra())} era, not the legacy one`);
  const request = { name: 'echo', arguments: callArgs };
  await checkEcho('sdk2', (a) => client.callTool({ name: 'echo', arguments: a as Record<string, unknown> }) as Promise<CallResult>);
  return {
    name: 'sdk2',
    label: 'official SDK 2.x McpServer (zod 4)',
    run: () => client.callTool(request),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

async function tmcpContender(): Promise<Contender> {
  const [clientEnd, serverEnd] = createMemoryPair();
  const stop = serveTmcpOn(newTmcpServer(), serverEnd);
  const client = await createClient({ ...clientInfo, era: 'legacy' }).connect(clientEnd);
  await checkEcho('tmcp', (a) => client.callTool('echo', a as JsonObject));
  return {
    name: 'tmcp',
    label: 'tmcp McpServer (zod 4; rxmcp client)',
    run: () => client.callTool('echo', callArgs),
    close: async () => {
      await client.close();
      stop();
    },
  };
}

interface FloorMessage {
  readonly jsonrpc: '2.0';
  readonly id: number;
  readonly method?: string;
  readonly params?: { readonly name: string; readonly arguments: typeof callArgs };
  readonly result?: ReturnType<typeof echo>;
}

/** One end of the floor's link: what it sends reaches the peer's handler on a later microtask. */
class FloorEnd {
  peer: FloorEnd | undefined;
  constructor(public onMessage: (message: FloorMessage) => void) {}
  send(message: FloorMessage): void {
    const peer = this.peer;
    if (peer !== undefined) queueMicrotask(() => peer.onMessage(message));
  }
}

/** The floor: the same request and answer as plain JSON-RPC objects, a pending map, no parsing or checks. */
function floorContender(): Contender {
  const pending = new Map<number, (result: FloorMessage['result']) => void>();
  let lastId = 0;
  const client = new FloorEnd((message) => {
    const resolve = pending.get(message.id);
    pending.delete(message.id);
    resolve?.(message.result);
  });
  const server = new FloorEnd((message) => server.send({ jsonrpc: '2.0', id: message.id, result: echo((message.params as NonNullable<FloorMessage['params']>).arguments) }));
  client.peer = server;
  server.peer = client;
  return {
    name: 'floor',
    label: 'raw floor (queueMicrotask echo)',
    run: () =>
      new Promise((resolve) => {
        const id = ++lastId;
        pending.set(id, resolve);
        client.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: callArgs } });
      }),
    close: async () => {
      client.peer = undefined;
      server.peer = undefined;
    },
  };
}

async function makeContender(name: CallContender): Promise<Contender> {
  if (name === 'rxmcp') return rxmcpContender('json');
  if (name === 'rxmcpModern') return rxmcpContender('json', 'modern');
  if (name === 'rxmcpZod') return rxmcpContender('zod');
  if (name === 'sdk') return sdkContender();
  if (name === 'sdk2') return sdk2Contender();
  if (name === 'tmcp') return tmcpContender();
  return floorContender();
}

export async function runToolsCallBench(options: { rounds: number; count: number; warmup: number; window: number; suite: boolean; contenders?: readonly CallContender[] }): Promise<ToolsCallResult> {
  const contenders: Contender[] = [];
  for (const name of options.contenders ?? callContenders) contenders.push(await makeContender(name));
  for (const contender of contenders) {
    await sequential(contender, options.warmup);
    await windowed(contender, options.warmup, options.window);
  }
  console.log(`tools/call, sequential: warm-up ${options.warmup} each, then ${options.rounds} rounds x ${options.count} calls, interleaved (order rotates)`);
  const seq = await interleave(contenders, options.rounds, (c): Promise<Sample> => timed(options.count, () => sequential(c, options.count)), 'call');
  console.log(`tools/call, ${options.window} in flight: ${options.rounds} rounds x ${options.count} calls, interleaved (order rotates)`);
  const win = await interleave(contenders, options.rounds, (c): Promise<Sample> => timed(options.count, () => windowed(c, options.count, options.window)), 'call');
  const ratio = (figures: Record<string, Figures>): number => (figures['rxmcp']?.medianCpuUsPerOp ?? NaN) / (figures['sdk']?.medianCpuUsPerOp ?? NaN);
  const cpuRatioSequential = ratio(seq);
  const cpuRatioWindowed = ratio(win);
  console.log(`  CPU per call, rxmcp/SDK: sequential ${fmt(cpuRatioSequential, 3)}, ${options.window} in flight ${fmt(cpuRatioWindowed, 3)} (target <= 0.25)`);
  const eraRatio = (figures: Record<string, Figures>): number => (figures['rxmcpModern']?.medianCpuUsPerOp ?? NaN) / (figures['rxmcp']?.medianCpuUsPerOp ?? NaN);
  const modernRatioSequential = eraRatio(seq);
  const modernRatioWindowed = eraRatio(win);
  console.log(`  CPU per call, rxmcp modern era / legacy era: sequential ${fmt(modernRatioSequential, 3)}, ${options.window} in flight ${fmt(modernRatioWindowed, 3)} (target <= 1.3)`);
  const callsPerCycle = 100;
  let suite: ToolsCallResult['suite'];
  if (options.suite) {
    console.log(`\nbenchmark.js suite (deferred, ${callsPerCycle} sequential tools/call per op):`);
    suite = { callsPerCycle, figures: await runSuite(contenders, callsPerCycle) };
  }
  for (const contender of contenders) await contender.close();
  return {
    ...options,
    sequential: seq as Record<CallContender, Figures>,
    windowed: win as Record<CallContender, Figures>,
    cpuRatioSequential,
    cpuRatioWindowed,
    modernRatioSequential,
    modernRatioWindowed,
    suite,
  };
}

/** `--contenders=rxmcp,rxmcpModern,floor`: a subset, e.g. the two eras against the floor in one run. */
function contendersArg(raw: string): CallContender[] {
  const names = raw.split(',');
  for (const name of names) if (!(callContenders as readonly string[]).includes(name)) throw new RangeError(`--contenders takes ${callContenders.join(', ')}, got ${name}`);
  return names as CallContender[];
}

/** Only one contender's calls, for a CPU profile (`node --cpu-prof ... --profile=rxmcp`). */
async function profileOne(name: CallContender, count: number, window: number): Promise<void> {
  const contender = await makeContender(name);
  await sequential(contender, 5_000);
  const sample = await timed(count, () => (window > 1 ? windowed(contender, count, window) : sequential(contender, count)));
  console.log(`${contender.label}, ${window > 1 ? `${window} in flight` : 'sequential'}: ${fmt(sample.opsPerSec, 0)} calls/s, ${fmt(sample.cpuUsPerOp)} CPU us/call`);
  await contender.close();
  const maps = argValue('source-maps');
  if (maps !== undefined) console.log(`source maps of ${dumpSourceMaps(maps)} modules written to ${maps}`);
}

const profile = argValue('profile');
if (isMain(import.meta.url) && profile !== undefined) {
  if (!(callContenders as readonly string[]).includes(profile)) throw new RangeError(`--profile must be one of ${callContenders.join(', ')}, got ${profile}`);
  await profileOne(profile as CallContender, argInt('count', 300_000), argInt('window', 1));
} else if (isMain(import.meta.url)) {
  const result = await runToolsCallBench({
    rounds: argInt('rounds', 7),
    count: argInt('count', 20_000),
    warmup: argInt('warmup', 5_000),
    window: argInt('window', 64),
    suite: !hasFlag('no-suite'),
    ...(argValue('contenders') === undefined ? {} : { contenders: contendersArg(argValue('contenders') as string) }),
  });
  emitResult(result);
}
