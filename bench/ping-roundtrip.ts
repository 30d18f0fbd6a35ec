/**
 * In-memory `ping` round trips: rxmcp against the official SDK 1.x, in one process, interleaved, with a raw
 * JSON-RPC echo over a queueMicrotask link as the floor. A benchmark, not a test: it reports, never asserts.
 *
 *   node --import tsx bench/ping-roundtrip.ts [--rounds=7] [--count=20000] [--warmup=5000] [--no-suite]
 *   node --cpu-prof --cpu-prof-dir=.tmp --import tsx bench/ping-roundtrip.ts --profile=rxmcp [--count=200000]
 *
 * Each contender is one connected client/server pair, set up once. Per round, each contender runs `count`
 * sequential pings (await one, send the next); the order of contenders rotates each round so none always
 * runs first or last. We report the median over rounds of round trips per second (wall clock) and of CPU
 * microseconds per round trip (process.cpuUsage user+system delta / count). There is deliberately no forced
 * gc between runs: measured here, a forced full gc left the next ~20k round trips of the floor 2-4x slower in
 * CPU (likely a shrunken young generation and concurrent sweeping, which process.cpuUsage counts). That
 * distorts far more than the young garbage one contender leaves to the next (a scavenge costs what survives,
 * not what died). Then a benchmark.js suite
 * measures the same three with deferred benchmarks of 100 sequential pings per cycle.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { connectSession, createSessionAcceptor } from '../engine.ts';
import { createMemoryPair } from '../transports/memory/index.ts';
import { clientInfo, serverInfo } from './echo-tool.ts';
import { type Op, type Sample, interleave, runSuite, sequential, timed } from './harness.ts';
import { argInt, argValue, emitResult, fmt, hasFlag, isMain } from './lib.ts';

export type ContenderName = 'rxmcp' | 'sdk' | 'floor';

/** A connected client/server pair; `run` is one ping round trip. */
interface Contender extends Op<ContenderName> {
  close(): Promise<void>;
}

export interface RoundSample {
  readonly roundTripsPerSec: number;
  readonly cpuUsPerRoundTrip: number;
}

export interface ContenderFigures {
  readonly label: string;
  readonly samples: readonly RoundSample[];
  readonly medianRoundTripsPerSec: number;
  readonly medianCpuUsPerRoundTrip: number;
}

export interface SuiteFigure {
  readonly label: string;
  /** Cycles (of `pingsPerCycle` pings) per second. */
  readonly hz: number;
  /** Relative margin of error, percent. */
  readonly rme: number;
  readonly samples: number;
  readonly pingsPerSec: number;
}

export interface PingResult {
  readonly rounds: number;
  readonly count: number;
  readonly warmup: number;
  readonly figures: Record<ContenderName, ContenderFigures>;
  /** rxmcp / SDK, CPU microseconds per round trip (lower is better for rxmcp). */
  readonly cpuRatioRxmcpToSdk: number;
  readonly suite: { readonly pingsPerCycle: number; readonly figures: Partial<Record<ContenderName, SuiteFigure>> } | undefined;
}


async function rxmcpContender(): Promise<Contender> {
  const [clientEnd, serverEnd] = createMemoryPair();
  const server = createSessionAcceptor({ serverInfo, capabilities: {} }).accept(serverEnd);
  const client = await connectSession(clientEnd, { clientInfo, capabilities: {} });
  return {
    name: 'rxmcp',
    label: 'rxmcp',
    run: () => client.ping(),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

async function sdkContender(): Promise<Contender> {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const server = new Server(serverInfo, { capabilities: {} });
  await server.connect(serverEnd);
  const client = new Client(clientInfo, { capabilities: {} });
  await client.connect(clientEnd);
  return {
    name: 'sdk',
    label: 'official SDK 1.x',
    run: () => client.ping(),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

interface FloorMessage {
  readonly jsonrpc: '2.0';
  readonly id: number;
  readonly method?: string;
  readonly result?: Record<string, never>;
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

/** The floor: a JSON-RPC ping echo with a pending-request map and nothing else (no parsing, no checks). */
function floorContender(): Contender {
  const pending = new Map<number, () => void>();
  let lastId = 0;
  const client = new FloorEnd((message) => {
    const resolve = pending.get(message.id);
    pending.delete(message.id);
    resolve?.();
  });
  const server = new FloorEnd((message) => server.send({ jsonrpc: '2.0', id: message.id, result: {} }));
  client.peer = server;
  server.peer = client;
  return {
    name: 'floor',
    label: 'raw floor (queueMicrotask echo)',
    run: () =>
      new Promise<void>((resolve) => {
        const id = ++lastId;
        pending.set(id, resolve);
        client.send({ jsonrpc: '2.0', id, method: 'ping' });
      }),
    close: async () => {
      client.peer = undefined;
      server.peer = undefined;
    },
  };
}

const roundSampleOf = (sample: Sample): RoundSample => ({ roundTripsPerSec: sample.opsPerSec, cpuUsPerRoundTrip: sample.cpuUsPerOp });

/** `count` sequential pings, timed (the measuring loop of bench/harness.ts). */
const timedRun = (contender: Contender, count: number): Promise<Sample> => timed(count, () => sequential(contender, count));

export async function runPingBench(options: { rounds: number; count: number; warmup: number; suite: boolean }): Promise<PingResult> {
  const contenders = [await rxmcpContender(), await sdkContender(), floorContender()];
  console.log(`ping round trips: warm-up ${options.warmup} each, then ${options.rounds} rounds x ${options.count} sequential pings, interleaved` +
    ' (order rotates each round; no forced gc)');
  for (const contender of contenders) await sequential(contender, options.warmup);
  const measured = await interleave(contenders, options.rounds, (contender) => timedRun(contender, options.count), 'round trip');
  const figuresOf = (contender: Contender): ContenderFigures => {
    const figures = measured[contender.name];
    return {
      label: contender.label,
      samples: figures?.samples.map(roundSampleOf) ?? [],
      medianRoundTripsPerSec: figures?.medianOpsPerSec ?? Number.NaN,
      medianCpuUsPerRoundTrip: figures?.medianCpuUsPerOp ?? Number.NaN,
    };
  };
  const [rx, sdk, floor] = contenders as [Contender, Contender, Contender];
  const figures: Record<ContenderName, ContenderFigures> = { rxmcp: figuresOf(rx), sdk: figuresOf(sdk), floor: figuresOf(floor) };
  const cpuRatioRxmcpToSdk = figures.rxmcp.medianCpuUsPerRoundTrip / figures.sdk.medianCpuUsPerRoundTrip;
  console.log(`  CPU per round trip, rxmcp/SDK: ${fmt(cpuRatioRxmcpToSdk, 3)} (target <= 0.25)`);
  const pingsPerCycle = 100;
  let suite: PingResult['suite'];
  if (options.suite) {
    console.log(`\nbenchmark.js suite (deferred, ${pingsPerCycle} sequential pings per op):`);
    const cycles = await runSuite(contenders, pingsPerCycle);
    const suiteFigures: Partial<Record<ContenderName, SuiteFigure>> = {};
    for (const [name, { opsPerSec, ...figure }] of Object.entries(cycles)) suiteFigures[name as ContenderName] = { ...figure, pingsPerSec: opsPerSec };
    suite = { pingsPerCycle, figures: suiteFigures };
  }
  for (const contender of contenders) await contender.close();
  return { ...options, figures, cpuRatioRxmcpToSdk, suite };
}

/** Only one contender's pings, for a CPU profile (`node --cpu-prof ... --profile=rxmcp`). */
async function profileOne(name: ContenderName, count: number): Promise<void> {
  const contender = name === 'rxmcp' ? await rxmcpContender() : name === 'sdk' ? await sdkContender() : floorContender();
  const sample = roundSampleOf(await timedRun(contender, count));
  console.log(`${contender.label}: ${fmt(sample.roundTripsPerSec, 0)} round trips/s, ${fmt(sample.cpuUsPerRoundTrip)} CPU us/round trip`);
  await contender.close();
}

const profile = argValue('profile');
if (isMain(import.meta.url) && profile !== undefined) {
  if (profile !== 'rxmcp' && profile !== 'sdk' && profile !== 'floor') throw new RangeError(`--profile must be rxmcp, sdk or floor, got ${profile}`);
  await profileOne(profile, argInt('count', 200_000));
} else if (isMain(import.meta.url)) {
  const result = await runPingBench({
    rounds: argInt('rounds', 7),
    count: argInt('count', 20_000),
    warmup: argInt('warmup', 5_000),
    suite: !hasFlag('no-suite'),
  });
  emitResult(result);
}
