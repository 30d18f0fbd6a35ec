/**
 * Scale, figure 3 (a child program of bench/scale.ts): session churn. N sessions opened, used (one `tools/call` of the
 * echo tool each) and closed in one process, `--concurrency` at a time, over in-memory transports; heapUsed after gc
 * at the baseline, every `--every` sessions and at the end, and the process's live resources before and after.
 * A benchmark, not a test: it reports whether the heap came back, never asserts.
 *
 *   node --expose-gc --max-old-space-size=8192 --import tsx bench/scale-churn.ts --impl=rxmcp|sdk [--n=1000000] [--concurrency=256] [--every=100000] [--warmup=10000]
 *
 * - rxmcp: one `createServer()` with the echo tool and one `createClient({ era: 'legacy' })` for the whole run; a
 *   session is `createMemoryPair()`, `server.accept(serverEnd)`, `client.connect(clientEnd)` (initialize handshake),
 *   `session.callTool('echo', ...)` (answer checked), `session.close()`.
 * - official SDK 1.x: per session `InMemoryTransport.createLinkedPair()`, `new McpServer()` + `registerTool` +
 *   `connect`, `new Client()` + `connect`, `client.callTool(...)` (answer checked), `client.close()` (which closes
 *   the linked server transport too; the server's `onclose` is counted).
 * Readings: resources (`process.getActiveResourcesInfo()`) once the modules are loaded and the server is up, before
 * any session; then `--warmup` sessions churned (JIT, lazily built state, bounded caches filled), settle, gc twice:
 * the baseline heapUsed. Then the N sessions in chunks of `--every`; after each chunk, settle, gc twice, heapUsed.
 * At the end: heapUsed, resources, the server's open sessions (`server.sessions.size`; SDK: servers not yet closed).
 */
import { argInt, argValue, emitResult, fmt, isMain } from './lib.ts';
import { activeResources, clocked, pool, readMemory, totalResources } from './scale-lib.ts';
import { callArgs, clientInfo, echo, type EchoArgs, echoJsonSchema, expectedText, serverInfo } from './echo-tool.ts';

export type ChurnImpl = 'rxmcp' | 'sdk';

export interface ChurnPoint {
  /** Sessions churned since the baseline. */
  readonly sessions: number;
  readonly heapUsed: number;
  readonly rss: number;
  /** Seconds since the baseline. */
  readonly seconds: number;
}

export interface ChurnFigures {
  readonly impl: ChurnImpl;
  readonly n: number;
  readonly concurrency: number;
  readonly every: number;
  readonly warmup: number;
  readonly baseline: ChurnPoint;
  readonly points: readonly ChurnPoint[];
  readonly endMinusBaselineBytes: number;
  /** (end - first checkpoint) / (sessions between them): heap kept per churned session once warm. */
  readonly slopeBytesPerSession: number;
  readonly toleranceBytes: number;
  readonly returnedToBaseline: boolean;
  readonly resourcesBefore: Record<string, number>;
  readonly resourcesAfter: Record<string, number>;
  /** Server sessions still open at the end (rxmcp: `server.sessions.size`; SDK: servers whose transport did not close). */
  readonly serverSessionsAtEnd: number;
  /** Client sessions still open at the end (rxmcp: `client.sessions.size`; SDK: clients not closed). */
  readonly clientSessionsAtEnd: number;
  readonly churnSeconds: number;
  readonly cpuUsPerSession: number;
  readonly sessionsPerSecond: number;
  readonly calls: number;
}

/** The returned-to-baseline criterion: the end within the larger of 1 MiB and 2 % of the baseline heap. */
export const churnTolerance = (baselineHeap: number): number => Math.max(1024 * 1024, 0.02 * baselineHeap);

interface Churner {
  one(): Promise<void>;
  serverOpen(): number;
  clientOpen(): number;
  calls(): number;
}

const checkAnswer = (result: { content?: unknown; isError?: unknown }): void => {
  const text = (result.content as { text?: string }[] | undefined)?.[0]?.text;
  if (result.isError === true || text !== expectedText) throw new Error(`echo answered ${JSON.stringify(result)}`);
};

async function rxmcpChurner(): Promise<Churner> {
  const { createClient, createServer } = await import('../index.ts');
  const { createMemoryPair } = await import('../transports/memory/index.ts');
  const server = createServer(serverInfo);
  server.tool({ name: 'echo', inputSchema: echoJsonSchema() }, (a) => echo(a as unknown as EchoArgs));
  const client = createClient({ ...clientInfo, era: 'legacy' });
  let calls = 0;
  return {
    async one() {
      const [clientEnd, serverEnd] = createMemoryPair();
      server.accept(serverEnd);
      const session = await client.connect(clientEnd);
      checkAnswer(await session.callTool('echo', callArgs));
      calls++;
      await session.close();
    },
    serverOpen: () => server.sessions.size,
    clientOpen: () => client.sessions.size,
    calls: () => calls,
  };
}

async function sdkChurner(): Promise<Churner> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { echoZodShape } = await import('./echo-zod.ts');
  const shape = echoZodShape();
  let servers = 0;
  let clients = 0;
  let calls = 0;
  return {
    async one() {
      const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
      const server = new McpServer(serverInfo);
      server.registerTool('echo', { inputSchema: shape }, echo);
      await server.connect(serverEnd);
      servers++;
      server.server.onclose = () => void servers--;
      const client = new Client(clientInfo);
      await client.connect(clientEnd);
      clients++;
      checkAnswer((await client.callTool({ name: 'echo', arguments: callArgs })) as { content?: unknown; isError?: unknown });
      calls++;
      await client.close();
      clients--;
    },
    serverOpen: () => servers,
    clientOpen: () => clients,
    calls: () => calls,
  };
}

export async function measureChurn(impl: ChurnImpl, n: number, concurrency: number, every: number, warmup: number): Promise<ChurnFigures> {
  const churner = impl === 'rxmcp' ? await rxmcpChurner() : await sdkChurner();
  const resourcesBefore = activeResources();
  await pool(warmup, concurrency, () => churner.one());
  const points: ChurnPoint[] = [];
  const base = await readMemory();
  const start = process.hrtime.bigint();
  const seconds = (): number => Number(process.hrtime.bigint() - start) / 1e9;
  const baseline: ChurnPoint = { sessions: 0, heapUsed: base.heapUsed, rss: base.rss, seconds: 0 };
  let done = 0;
  let churnMs = 0;
  let cpuMs = 0;
  while (done < n) {
    const chunk = Math.min(every, n - done);
    const ran = await clocked(() => pool(chunk, concurrency, () => churner.one()));
    churnMs += ran.wallMs;
    cpuMs += ran.cpuMs;
    done += chunk;
    const m = await readMemory();
    points.push({ sessions: done, heapUsed: m.heapUsed, rss: m.rss, seconds: seconds() });
    console.log(`  [churn ${impl}] ${fmt(done, 0)} sessions: heapUsed ${fmt(m.heapUsed / 1048576)} MiB (baseline ${fmt(base.heapUsed / 1048576)} MiB, ` +
      `${m.heapUsed >= base.heapUsed ? '+' : ''}${fmt((m.heapUsed - base.heapUsed) / 1024, 1)} KiB), RSS ${fmt(m.rss / 1048576)} MiB, ${fmt(seconds(), 1)} s`);
  }
  const resourcesAfter = activeResources();
  const end = points[points.length - 1] ?? baseline;
  const first = points[0] ?? baseline;
  const delta = end.heapUsed - baseline.heapUsed;
  const tolerance = churnTolerance(baseline.heapUsed);
  return {
    impl,
    n,
    concurrency,
    every,
    warmup,
    baseline,
    points,
    endMinusBaselineBytes: delta,
    slopeBytesPerSession: end.sessions > first.sessions ? (end.heapUsed - first.heapUsed) / (end.sessions - first.sessions) : Number.NaN,
    toleranceBytes: tolerance,
    returnedToBaseline: delta <= tolerance,
    resourcesBefore,
    resourcesAfter,
    serverSessionsAtEnd: churner.serverOpen(),
    clientSessionsAtEnd: churner.clientOpen(),
    churnSeconds: churnMs / 1000,
    cpuUsPerSession: (cpuMs * 1000) / n,
    sessionsPerSecond: n / (churnMs / 1000),
    calls: churner.calls(),
  };
}

if (isMain(import.meta.url)) {
  const impl = argValue('impl');
  if (impl !== 'rxmcp' && impl !== 'sdk') throw new RangeError(`--impl must be rxmcp or sdk, got ${String(impl)}`);
  const n = argInt('n', impl === 'rxmcp' ? 1_000_000 : 50_000);
  const f = await measureChurn(impl, n, argInt('concurrency', 256), argInt('every', impl === 'rxmcp' ? 100_000 : 10_000), argInt('warmup', 10_000));
  console.log(`  [churn ${impl}] ${fmt(n, 0)} sessions in ${fmt(f.churnSeconds, 1)} s (${fmt(f.sessionsPerSecond, 0)}/s, ${fmt(f.cpuUsPerSession, 1)} µs CPU each): ` +
    `end - baseline ${fmt(f.endMinusBaselineBytes / 1024, 1)} KiB (tolerance ${fmt(f.toleranceBytes / 1024, 0)} KiB: ${f.returnedToBaseline ? 'returned' : 'NOT returned'}), ` +
    `resources ${totalResources(f.resourcesBefore)} -> ${totalResources(f.resourcesAfter)}, server sessions open ${f.serverSessionsAtEnd}, client sessions open ${f.clientSessionsAtEnd}`);
  emitResult(f);
}
