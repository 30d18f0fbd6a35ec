/**
 * Heap per idle, initialized SERVER session, rxmcp against the official SDK 1.x and the official SDK 2.x. A benchmark,
 * not a test.
 *
 *   npx tsx bench/idle-session-heap.ts [--n=10000] [--loader=tsx|strip]   all, each in a fresh child process
 *   node --expose-gc --import tsx bench/idle-session-heap.ts --impl=rxmcp|sdk|sdk2 --n=10000   one measurement
 *
 * In the child: create (and keep alive) a few warm-up sessions so one-time costs (lazy module state, JIT)
 * land in the baseline; gc twice; read heapUsed and RSS; create N server sessions, each on its own in-memory
 * transport end, and drive each through the handshake with the same minimal raw client on the other end
 * (`initialize` with protocolVersion 2025-11-25, await the response, `notifications/initialized`); gc twice;
 * read again. The per-session figure is (after - baseline) / N and includes the server session, its
 * transport end, the raw client's transport end and the raw client's receive closure. rxmcp shares one
 * acceptor (configuration and handlers) among its sessions; the SDK needs one `Server` per transport, so its
 * figure includes a `Server` each; so does the SDK 2.x's (its low-level `Server` from '@modelcontextprotocol/server'
 * over its own `InMemoryTransport`, serving the legacy era the handshake asks for). All are given the same shared
 * serverInfo/capabilities objects. tmcp is not measured here: its `McpServer` holds no per-connection state (its
 * transports do: stdio one per process, HTTP a session manager; see bench/http-idle-sessions.ts) and it has no
 * in-memory transport, so a figure here would be only a link written for the benchmark.
 */
import { fileURLToPath } from 'node:url';
import type { JsonObject, JsonRpcNotification, JsonRpcRequest } from '../core/jsonrpc.ts';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type Loader, argInt, argLoader, argValue, emitResult, fmt, isMain, loaderArgs, runChild } from './lib.ts';
import { gcTwice } from './scale-lib.ts';

export type Impl = 'rxmcp' | 'sdk' | 'sdk2';
export const heapImpls: readonly Impl[] = ['rxmcp', 'sdk', 'sdk2'];

export interface HeapFigures {
  readonly impl: Impl;
  readonly n: number;
  readonly warmupSessions: number;
  readonly heapBytesPerSession: number;
  readonly rssBytesPerSession: number;
  readonly baselineHeapBytes: number;
  readonly afterHeapBytes: number;
  /** Sessions that reached the initialized (operating) state; must equal n. */
  readonly initialized: number;
}

export interface HeapResult {
  readonly n: number;
  readonly loader: Loader;
  readonly figures: Record<Impl, HeapFigures>;
  readonly commands: Record<Impl, string>;
  readonly heapRatioRxmcpToSdk: number;
  readonly heapRatioRxmcpToSdk2: number;
}

type Wire = JsonObject;
type Outbound = JsonRpcRequest | JsonRpcNotification;

/** What the raw client needs from its end of a link: a way to send, and to be told of what arrives. */
export interface RawEnd {
  send(message: Outbound): unknown;
  listen(receive: (message: Wire) => void): void;
}

/** A session under test, as far as this benchmark cares. */
interface Made {
  readonly keep: unknown;
  initialized(): boolean;
}

interface Impls {
  /** Creates one server session, returns it and the raw client's end of its link. */
  make(): { made: Made; clientEnd: RawEnd };
}

const serverInfo = { name: 'bench-server', version: '0.0.0' };
const capabilities = {};

async function loadImpl(impl: Impl): Promise<Impls> {
  if (impl === 'rxmcp') {
    const { createSessionAcceptor } = await import('../engine.ts');
    const { createMemoryPair } = await import('../transports/memory/index.ts');
    const acceptor = createSessionAcceptor({ serverInfo, capabilities });
    return {
      make() {
        const [clientEnd, serverEnd] = createMemoryPair();
        const session = acceptor.accept(serverEnd);
        return {
          made: { keep: session, initialized: () => session.state === 'operating' },
          clientEnd: {
            send: (message) => clientEnd.send({ payload: message }),
            listen: (receive) => void clientEnd.incoming$.subscribe((frame) => frame.type === 'message' && receive(frame.payload as Wire)),
          },
        };
      },
    };
  }
  if (impl === 'sdk2') {
    const { Server: Sdk2Server, InMemoryTransport: Sdk2InMemoryTransport } = await import('@modelcontextprotocol/server');
    return {
      make() {
        const [clientEnd, serverEnd] = Sdk2InMemoryTransport.createLinkedPair();
        const server = new Sdk2Server(serverInfo, { capabilities });
        void server.connect(serverEnd);
        return {
          made: { keep: server, initialized: () => server.getClientVersion() !== undefined },
          clientEnd: {
            send: (message) => clientEnd.send(message as never),
            listen: (receive) => (clientEnd.onmessage = (message) => receive(message as unknown as Wire)),
          },
        };
      },
    };
  }
  const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  return {
    make() {
      const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
      const server = new Server(serverInfo, { capabilities });
      void server.connect(serverEnd);
      return {
        made: { keep: server, initialized: () => server.getClientVersion() !== undefined },
        clientEnd: {
          send: (message) => clientEnd.send(message as JSONRPCMessage),
          listen: (receive) => (clientEnd.onmessage = (message) => receive(message as Wire)),
        },
      };
    },
  };
}

/** The minimal raw client: one initialize request, await its response, one initialized notification. */
export async function rawHandshake(end: RawEnd): Promise<void> {
  let resolveResponse: ((message: Wire) => void) | undefined;
  const response = new Promise<Wire>((resolve) => (resolveResponse = resolve));
  end.listen((message) => {
    const resolve = resolveResponse;
    resolveResponse = undefined;
    resolve?.(message);
  });
  await end.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-client', version: '0.0.0' } },
  });
  const answer = await response;
  if (answer['result'] === undefined) throw new Error(`initialize failed: ${JSON.stringify(answer)}`);
  await end.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 20));
}

export async function measureChild(impl: Impl, n: number, warmupSessions: number): Promise<HeapFigures> {
  const impls = await loadImpl(impl);
  const warm: Made[] = [];
  for (let i = 0; i < warmupSessions; i++) {
    const { made, clientEnd } = impls.make();
    await rawHandshake(clientEnd);
    warm.push(made);
  }
  // Preallocated so that storing the references adds nothing to the delta.
  const kept = new Array<Made | undefined>(n).fill(undefined);
  await settle();
  gcTwice();
  const baseline = process.memoryUsage();
  for (let i = 0; i < n; i++) {
    const { made, clientEnd } = impls.make();
    await rawHandshake(clientEnd);
    kept[i] = made;
  }
  await settle();
  gcTwice();
  const after = process.memoryUsage();
  let initialized = 0;
  for (const made of kept) if (made?.initialized() === true) initialized++;
  for (const made of warm) if (!made.initialized()) throw new Error('a warm-up session is not initialized');
  if (initialized !== n) throw new Error(`only ${initialized} of ${n} sessions reached the initialized state`);
  return {
    impl,
    n,
    warmupSessions,
    heapBytesPerSession: (after.heapUsed - baseline.heapUsed) / n,
    rssBytesPerSession: (after.rss - baseline.rss) / n,
    baselineHeapBytes: baseline.heapUsed,
    afterHeapBytes: after.heapUsed,
    initialized,
  };
}

const thisScript = fileURLToPath(import.meta.url);

/** Runs each implementation in its own fresh child process and returns their figures. */
export async function runHeapBench(n: number, loader: Loader = 'tsx'): Promise<HeapResult> {
  const figures: Partial<Record<Impl, HeapFigures>> = {};
  const commands: Partial<Record<Impl, string>> = {};
  for (const impl of heapImpls) {
    const run = await runChild(['--expose-gc', ...loaderArgs(loader)], thisScript, [`--impl=${impl}`, `--n=${n}`]);
    figures[impl] = run.result as HeapFigures;
    commands[impl] = run.command;
  }
  const rx = figures.rxmcp as HeapFigures;
  const sdk = figures.sdk as HeapFigures;
  const sdk2 = figures.sdk2 as HeapFigures;
  const heapRatioRxmcpToSdk = rx.heapBytesPerSession / sdk.heapBytesPerSession;
  const heapRatioRxmcpToSdk2 = rx.heapBytesPerSession / sdk2.heapBytesPerSession;
  console.log(`\nheap per idle initialized server session (n=${n}, loader ${loader}; includes server session + its transport end + raw client end):`);
  for (const f of [rx, sdk, sdk2]) {
    console.log(`  ${f.impl.padEnd(6)} ${fmt(f.heapBytesPerSession, 0).padStart(8)} B = ${fmt(f.heapBytesPerSession / 1024)} KiB heap   ${fmt(f.rssBytesPerSession / 1024)} KiB RSS`);
  }
  console.log(`  heap ratio rxmcp/SDK: ${fmt(heapRatioRxmcpToSdk, 3)}, rxmcp/SDK 2.x: ${fmt(heapRatioRxmcpToSdk2, 3)} (target: rxmcp <= 4 KiB)`);
  return {
    n,
    loader,
    figures: { rxmcp: rx, sdk, sdk2 },
    commands: { rxmcp: commands.rxmcp ?? '', sdk: commands.sdk ?? '', sdk2: commands.sdk2 ?? '' },
    heapRatioRxmcpToSdk,
    heapRatioRxmcpToSdk2,
  };
}

if (isMain(import.meta.url)) {
  const n = argInt('n', 10_000);
  const impl = argValue('impl');
  if (impl === 'rxmcp' || impl === 'sdk' || impl === 'sdk2') {
    const figures = await measureChild(impl, n, argInt('warmup', 200));
    console.log(`  [${impl}] ${n} sessions: heapUsed ${fmt(figures.baselineHeapBytes / 1048576)} -> ${fmt(figures.afterHeapBytes / 1048576)} MiB`);
    emitResult(figures);
  } else if (impl === undefined) {
    emitResult(await runHeapBench(n, argLoader()));
  } else {
    throw new RangeError(`--impl must be rxmcp, sdk or sdk2, got ${impl}`);
  }
}
