/**
 * Scale, figure 2 (a child program of bench/scale.ts): the time to create N connected client+server session pairs
 * over in-memory transports, each through the full `initialize` handshake, rxmcp against the official SDK 1.x in the
 * same process, interleaved. A benchmark, not a test.
 *
 *   node --expose-gc --max-old-space-size=8192 --import tsx bench/scale-pairs.ts [--pairs=10000] [--reps=5] [--window=1] [--warmup=1000]
 *
 * - rxmcp: one `createServer()` (the echo tool registered) and one `createClient({ era: 'legacy' })` per repetition;
 *   a pair is `createMemoryPair()`, `server.accept(serverEnd)`, `await client.connect(clientEnd)` (initialize,
 *   answer, initialized).
 * - official SDK 1.x, `McpServer`: a server takes one transport, so each pair is `InMemoryTransport.createLinkedPair()`,
 *   `new McpServer(info)` + `registerTool('echo', ...)` (the same zod 4 shape, built once) + `connect`, then
 *   `new Client(info)` + `await client.connect(clientEnd)` (initialize, answer, initialized).
 * - official SDK 1.x, low-level `Server` (a reference): the same with `new Server(info, { capabilities: { tools: {} } })`
 *   and no handlers, the least the SDK needs per pair.
 * `--window` pairs are created at a time (1: one after another). Each repetition runs the contenders in rotating order;
 * before each: the previous pairs closed, gc twice. Timed: creating the N pairs (wall clock and CPU of this process).
 * After the timing, gc twice and heapUsed again: heap held per pair (client session + server session + both ends).
 * Then every client closes, untimed; the server's open sessions are checked to reach 0.
 */
import { argInt, argValue, emitResult, fmt, isMain, median } from './lib.ts';
import { clocked, gcTwice, pool, settleLong } from './scale-lib.ts';
import { clientInfo, echo, type EchoArgs, echoJsonSchema, serverInfo } from './echo-tool.ts';

export type PairsContender = 'rxmcp' | 'sdk' | 'sdkServer';
export const pairsContenders: readonly PairsContender[] = ['rxmcp', 'sdk', 'sdkServer'];
export const pairsLabels: Record<PairsContender, string> = {
  rxmcp: 'rxmcp (one createServer, one createClient)',
  sdk: 'official SDK 1.x (McpServer + registerTool per pair, Client per pair)',
  sdkServer: 'official SDK 1.x (low-level Server per pair, Client per pair; reference)',
};

export interface PairsRep {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly heapBytesPerPair: number;
  readonly closeMs: number;
}

export interface PairsFigures {
  readonly contender: PairsContender;
  readonly label: string;
  readonly reps: readonly PairsRep[];
  readonly medianWallMs: number;
  readonly medianCpuMs: number;
  readonly medianUsPerPair: number;
  readonly medianHeapBytesPerPair: number;
}

export interface PairsResult {
  readonly pairs: number;
  readonly reps: number;
  readonly window: number;
  readonly warmup: number;
  readonly figures: Record<PairsContender, PairsFigures>;
  /** rxmcp / SDK (McpServer), median wall-clock time to create the pairs. */
  readonly ratioRxmcpToSdk: number;
  readonly cpuRatioRxmcpToSdk: number;
  /** rxmcp / SDK (low-level Server). */
  readonly ratioRxmcpToSdkServer: number;
}

/** One repetition's worth of pairs of one contender: open them, then close them. */
interface Batch {
  open(index: number): Promise<void>;
  closeAll(): Promise<void>;
}

type BatchFactory = (count: number) => Batch;

async function rxmcpFactory(): Promise<BatchFactory> {
  const { createClient, createServer } = await import('../index.ts');
  const { createMemoryPair } = await import('../transports/memory/index.ts');
  type Session = Awaited<ReturnType<ReturnType<typeof createClient>['connect']>>;
  return (count) => {
    const server = createServer(serverInfo);
    server.tool({ name: 'echo', inputSchema: echoJsonSchema() }, (a) => echo(a as unknown as EchoArgs));
    const client = createClient({ ...clientInfo, era: 'legacy' });
    const sessions = new Array<Session | undefined>(count).fill(undefined);
    return {
      async open(index) {
        const [clientEnd, serverEnd] = createMemoryPair();
        server.accept(serverEnd);
        sessions[index] = await client.connect(clientEnd);
      },
      async closeAll() {
        await pool(count, 256, async (i) => {
          await sessions[i]?.close();
          sessions[i] = undefined;
        });
        await settleLong();
        if (server.sessions.size !== 0) throw new Error(`rxmcp: ${server.sessions.size} server sessions still open after the clients closed`);
        if (client.sessions.size !== 0) throw new Error(`rxmcp: ${client.sessions.size} client sessions still open after closing`);
        await server.close();
      },
    };
  };
}

async function sdkFactory(kind: 'mcp' | 'low'): Promise<BatchFactory> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
  const { echoZodShape } = await import('./echo-zod.ts');
  const shape = echoZodShape();
  const serverOptions = { capabilities: { tools: {} } };
  return (count) => {
    const clients = new Array<InstanceType<typeof Client> | undefined>(count).fill(undefined);
    let open = 0;
    return {
      async open(index) {
        const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
        let server: InstanceType<typeof Server>;
        if (kind === 'mcp') {
          const mcp = new McpServer(serverInfo);
          mcp.registerTool('echo', { inputSchema: shape }, echo);
          server = mcp.server;
          await mcp.connect(serverEnd);
        } else {
          server = new Server(serverInfo, serverOptions);
          await server.connect(serverEnd);
        }
        open++;
        server.onclose = () => void open--;
        const client = new Client(clientInfo);
        await client.connect(clientEnd);
        clients[index] = client;
      },
      async closeAll() {
        await pool(count, 256, async (i) => {
          await clients[i]?.close();
          clients[i] = undefined;
        });
        await settleLong();
        if (open !== 0) throw new Error(`sdk: ${open} servers still open after the clients closed`);
      },
    };
  };
}

export async function measurePairs(pairs: number, reps: number, window: number, warmup: number): Promise<PairsResult> {
  const factories: Record<PairsContender, BatchFactory> = { rxmcp: await rxmcpFactory(), sdk: await sdkFactory('mcp'), sdkServer: await sdkFactory('low') };
  const runBatch = async (contender: PairsContender, count: number): Promise<PairsRep> => {
    const batch = factories[contender](count);
    await settleLong();
    gcTwice();
    const before = process.memoryUsage().heapUsed;
    const opened = await clocked(() => pool(count, window, (i) => batch.open(i)));
    gcTwice();
    const held = process.memoryUsage().heapUsed - before;
    const closed = await clocked(() => batch.closeAll());
    return { wallMs: opened.wallMs, cpuMs: opened.cpuMs, heapBytesPerPair: held / count, closeMs: closed.wallMs };
  };
  for (const contender of pairsContenders) await runBatch(contender, warmup);
  const reps_: Record<PairsContender, PairsRep[]> = { rxmcp: [], sdk: [], sdkServer: [] };
  for (let rep = 0; rep < reps; rep++) {
    for (let k = 0; k < pairsContenders.length; k++) {
      const contender = pairsContenders[(rep + k) % pairsContenders.length] as PairsContender;
      const r = await runBatch(contender, pairs);
      reps_[contender].push(r);
      console.log(`  [pairs rep ${rep + 1}/${reps}] ${contender.padEnd(9)} ${fmt(pairs, 0)} pairs in ${fmt(r.wallMs, 0)} ms (CPU ${fmt(r.cpuMs, 0)} ms, ${fmt((r.wallMs * 1000) / pairs)} µs/pair), ` +
        `${fmt(r.heapBytesPerPair / 1024)} KiB heap per pair, closed in ${fmt(r.closeMs, 0)} ms`);
    }
  }
  const summarize = (contender: PairsContender): PairsFigures => {
    const rs = reps_[contender];
    const wall = median(rs.map((r) => r.wallMs));
    return {
      contender,
      label: pairsLabels[contender],
      reps: rs,
      medianWallMs: wall,
      medianCpuMs: median(rs.map((r) => r.cpuMs)),
      medianUsPerPair: (wall * 1000) / pairs,
      medianHeapBytesPerPair: median(rs.map((r) => r.heapBytesPerPair)),
    };
  };
  const figures: Record<PairsContender, PairsFigures> = { rxmcp: summarize('rxmcp'), sdk: summarize('sdk'), sdkServer: summarize('sdkServer') };
  return {
    pairs,
    reps,
    window,
    warmup,
    figures,
    ratioRxmcpToSdk: figures.rxmcp.medianWallMs / figures.sdk.medianWallMs,
    cpuRatioRxmcpToSdk: figures.rxmcp.medianCpuMs / figures.sdk.medianCpuMs,
    ratioRxmcpToSdkServer: figures.rxmcp.medianWallMs / figures.sdkServer.medianWallMs,
  };
}

if (isMain(import.meta.url)) {
  const windowArg = argValue('window');
  const result = await measurePairs(argInt('pairs', 10_000), argInt('reps', 5), windowArg === undefined ? 1 : argInt('window', 1), argInt('warmup', 1_000));
  console.log(`  pairs: rxmcp/SDK McpServer ${fmt(result.ratioRxmcpToSdk, 3)} wall clock (CPU ${fmt(result.cpuRatioRxmcpToSdk, 3)}), rxmcp/SDK Server ${fmt(result.ratioRxmcpToSdkServer, 3)}`);
  emitResult(result);
}
