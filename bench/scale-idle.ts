/**
 * Scale, figure 1 (a child program of bench/scale.ts): N idle, initialized legacy server sessions over the in-memory
 * transport in one process, heap and RSS per session and the time to open them. A benchmark, not a test.
 *
 *   node --expose-gc --max-old-space-size=8192 --import tsx bench/scale-idle.ts --impl=rxmcp|sdk --n=100000 [--warmup=200] [--via=server|acceptor]
 *
 * The method of bench/idle-session-heap.ts, at larger counts: warm-up sessions (kept, so one-time costs land in the
 * baseline), gc twice, baseline heapUsed/RSS; then N server sessions, each on its own in-memory transport end,
 * driven one after another through the handshake by the same minimal raw client on the other end (`initialize`
 * 2025-11-25, await the answer, `notifications/initialized`; bench/idle-session-heap.ts's `rawHandshake`); gc
 * twice; (after - baseline) / N. Everything stays referenced until the reading. rxmcp: one `createServer()` (the
 * echo tool registered) whose `accept` takes every session (`--via=acceptor`: a bare `createSessionAcceptor`, as
 * the foundation figure does); SDK 1.x: one low-level `Server` per transport (it takes one transport each).
 * The per-session figure includes the server session, its transport end, the raw client's end and its closure.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../core/jsonrpc.ts';
import { type RawEnd, rawHandshake } from './idle-session-heap.ts';
import { argInt, argValue, emitResult, fmt, isMain } from './lib.ts';
import { clocked, readMemory } from './scale-lib.ts';
import { echo, type EchoArgs, echoJsonSchema, serverInfo } from './echo-tool.ts';

export type IdleScaleImpl = 'rxmcp' | 'sdk';

export interface IdleScaleFigures {
  readonly impl: IdleScaleImpl;
  readonly via: string;
  readonly n: number;
  readonly warmup: number;
  readonly heapBytesPerSession: number;
  readonly rssBytesPerSession: number;
  readonly baselineHeapBytes: number;
  readonly afterHeapBytes: number;
  readonly baselineRssBytes: number;
  readonly afterRssBytes: number;
  /** Wall-clock time to open the N sessions (one after another, handshake included). */
  readonly openMs: number;
  readonly openCpuMs: number;
  /** Sessions in the initialized (operating) state at the reading; equals n. */
  readonly initialized: number;
}

interface Made {
  readonly keep: unknown;
  initialized(): boolean;
}
type Maker = () => { made: Made; clientEnd: RawEnd };

async function rxmcpMaker(via: 'server' | 'acceptor'): Promise<Maker> {
  const { createServer } = await import('../index.ts');
  const { createSessionAcceptor } = await import('../engine.ts');
  const { createMemoryPair } = await import('../transports/memory/index.ts');
  let accept: (end: ReturnType<typeof createMemoryPair>[1]) => { state: string };
  if (via === 'server') {
    const server = createServer(serverInfo);
    server.tool({ name: 'echo', inputSchema: echoJsonSchema() }, (a) => echo(a as unknown as EchoArgs));
    accept = (end) => server.accept(end);
  } else {
    const acceptor = createSessionAcceptor({ serverInfo, capabilities: {} });
    accept = (end) => acceptor.accept(end);
  }
  return () => {
    const [clientEnd, serverEnd] = createMemoryPair();
    const session = accept(serverEnd);
    return {
      made: { keep: session, initialized: () => session.state === 'operating' },
      clientEnd: {
        send: (message) => clientEnd.send({ payload: message }),
        listen: (receive) => void clientEnd.incoming$.subscribe((frame) => frame.type === 'message' && receive(frame.payload as JsonObject)),
      },
    };
  };
}

async function sdkMaker(): Promise<Maker> {
  const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const capabilities = {};
  return () => {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const server = new Server(serverInfo, { capabilities });
    void server.connect(serverEnd);
    return {
      made: { keep: server, initialized: () => server.getClientVersion() !== undefined },
      clientEnd: {
        send: (message) => clientEnd.send(message as JSONRPCMessage),
        listen: (receive) => (clientEnd.onmessage = (message) => receive(message as JsonObject)),
      },
    };
  };
}

export async function measureIdleScale(impl: IdleScaleImpl, n: number, warmup: number, via: 'server' | 'acceptor'): Promise<IdleScaleFigures> {
  const make = impl === 'rxmcp' ? await rxmcpMaker(via) : await sdkMaker();
  const warm: Made[] = [];
  for (let i = 0; i < warmup; i++) {
    const { made, clientEnd } = make();
    await rawHandshake(clientEnd);
    warm.push(made);
  }
  // Preallocated, so that keeping the references adds nothing to the delta.
  const kept = new Array<Made | undefined>(n).fill(undefined);
  const baseline = await readMemory();
  const opened = await clocked(async () => {
    for (let i = 0; i < n; i++) {
      const { made, clientEnd } = make();
      await rawHandshake(clientEnd);
      kept[i] = made;
    }
  });
  const after = await readMemory();
  let initialized = 0;
  for (const made of kept) if (made?.initialized() === true) initialized++;
  for (const made of warm) if (!made.initialized()) throw new Error('a warm-up session is not initialized');
  if (initialized !== n) throw new Error(`only ${initialized} of ${n} sessions reached the initialized state`);
  return {
    impl,
    via: impl === 'rxmcp' ? via : 'Server per transport',
    n,
    warmup,
    heapBytesPerSession: (after.heapUsed - baseline.heapUsed) / n,
    rssBytesPerSession: (after.rss - baseline.rss) / n,
    baselineHeapBytes: baseline.heapUsed,
    afterHeapBytes: after.heapUsed,
    baselineRssBytes: baseline.rss,
    afterRssBytes: after.rss,
    openMs: opened.wallMs,
    openCpuMs: opened.cpuMs,
    initialized,
  };
}

if (isMain(import.meta.url)) {
  const impl = argValue('impl');
  if (impl !== 'rxmcp' && impl !== 'sdk') throw new RangeError(`--impl must be rxmcp or sdk, got ${String(impl)}`);
  const via = argValue('via') ?? 'server';
  if (via !== 'server' && via !== 'acceptor') throw new RangeError(`--via must be server or acceptor, got ${via}`);
  const f = await measureIdleScale(impl, argInt('n', 100_000), argInt('warmup', 200), via);
  console.log(`  [idle ${impl}${impl === 'rxmcp' ? ` via ${via}` : ''}] ${fmt(f.n, 0)} sessions: ${fmt(f.heapBytesPerSession, 0)} B heap, ${fmt(f.rssBytesPerSession, 0)} B RSS per session; ` +
    `heapUsed ${fmt(f.baselineHeapBytes / 1048576)} -> ${fmt(f.afterHeapBytes / 1048576)} MiB; opened in ${fmt(f.openMs / 1000)} s (${fmt((f.openMs * 1000) / f.n)} µs each)`);
  emitResult(f);
}
