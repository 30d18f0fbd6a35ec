/**
 * Memory per idle Streamable HTTP session on the server, rxmcp against the official SDK 1.x, the official SDK 2.x and
 * tmcp. A benchmark, not a test.
 *
 *   npx tsx bench/http-idle-sessions.ts [--n=2000] [--warmup=200] [--loader=tsx|strip]
 *
 * For each server (rxmcp `createStreamableHttpServer` with responseMode 'sse' (its default) and 'json'; the SDK
 * with one `McpServer` + `StreamableHTTPServerTransport` per session, as its docs require, SSE answers (its default);
 * the SDK 2.x with one `McpServer` + `WebStandardStreamableHTTPServerTransport` per session, SSE answers; tmcp's one
 * `HttpTransport`, which keeps each session's client info in its in-memory session manager),
 * a fresh child process `node --expose-gc bench/transport-programs.ts --transport=http ...` serves on 127.0.0.1.
 * This process is the client, so nothing of the client side lands in the server's heap: it opens sessions through
 * raw node:http POSTs on a keep-alive agent (16 sockets, 16 handshakes at a time): `initialize` (protocolVersion
 * 2025-11-25; the answer read whole, JSON or SSE), then `notifications/initialized` with the session id (202), then
 * destroys the agent's sockets. First `--warmup` sessions (kept: one-time costs fall in the baseline), then the child
 * settles, runs gc twice and reports heapUsed/RSS (baseline); then `--n` sessions the same way, and again.
 * Per session = (after - baseline) / n; every session was counted open by the server at the end.
 */
import { Agent } from 'node:http';
import { type Loader, argInt, argLoader, emitResult, fmt, isMain } from './lib.ts';
import { Program, postJson } from './transport-lib.ts';

export type IdleImpl = 'rxmcpSse' | 'rxmcpJson' | 'sdk' | 'sdk2' | 'tmcp';
export const idleImpls: readonly IdleImpl[] = ['rxmcpSse', 'rxmcpJson', 'sdk', 'sdk2', 'tmcp'];
export const idleLabels: Record<IdleImpl, string> = {
  rxmcpSse: "rxmcp (responseMode 'sse', the default)",
  rxmcpJson: "rxmcp (responseMode 'json')",
  sdk: 'official SDK 1.x (McpServer + transport per session)',
  sdk2: 'official SDK 2.x (McpServer + transport per session)',
  tmcp: 'tmcp (one HttpTransport, in-memory session manager)',
};

export interface IdleFigures {
  readonly impl: IdleImpl;
  readonly n: number;
  readonly warmup: number;
  readonly heapBytesPerSession: number;
  readonly rssBytesPerSession: number;
  readonly baselineHeapBytes: number;
  readonly afterHeapBytes: number;
  /** Sessions the server holds at the end; must be warmup + n. */
  readonly serverSessions: number;
  readonly command: string;
}

export interface IdleResult {
  readonly n: number;
  readonly warmup: number;
  readonly loader: Loader;
  readonly figures: Record<IdleImpl, IdleFigures>;
}

const protocolVersion = '2025-11-25';
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-client', version: '0.0.0' } },
};

/** initialize + initialized over raw POSTs; resolves with the session id. */
async function openSession(agent: Agent, url: URL): Promise<string> {
  const answer = await postJson(agent, url, initialize);
  const id = answer.headers['mcp-session-id'];
  if (answer.status !== 200 || typeof id !== 'string' || !answer.body.includes('"result"')) {
    throw new Error(`initialize answered ${answer.status}: ${answer.body.slice(0, 200)}`);
  }
  const note = await postJson(agent, url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id, 'mcp-protocol-version': protocolVersion });
  if (note.status !== 202) throw new Error(`notifications/initialized answered ${note.status}: ${note.body.slice(0, 200)}`);
  return id;
}

/** Opens `count` sessions, 16 at a time, then drops the client's sockets. */
export async function openSessions(url: URL, count: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++;
      await openSession(agent, url);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  agent.destroy();
}

interface Memory {
  readonly heapUsed: number;
  readonly rss: number;
  readonly sessions: number;
}

export async function measureIdle(impl: IdleImpl, n: number, warmup: number, loader: Loader): Promise<IdleFigures> {
  const serverImpl = impl.startsWith('rxmcp') ? 'rxmcp' : impl;
  const args = ['--transport=http', `--impl=${serverImpl}`, `--mode=${impl === 'rxmcpJson' ? 'json' : 'sse'}`, `--max-sessions=${n + warmup + 100}`];
  const program = Program.start(loader, args, ['--expose-gc']);
  const url = new URL(String((await program.ready)['url']));
  await openSessions(url, warmup);
  const baseline = (await program.command('measure')) as unknown as Memory;
  await openSessions(url, n);
  const after = (await program.command('measure')) as unknown as Memory;
  await program.stop();
  if (after.sessions !== n + warmup) throw new Error(`${impl}: the server holds ${after.sessions} sessions, expected ${n + warmup}`);
  const figures: IdleFigures = {
    impl,
    n,
    warmup,
    heapBytesPerSession: (after.heapUsed - baseline.heapUsed) / n,
    rssBytesPerSession: (after.rss - baseline.rss) / n,
    baselineHeapBytes: baseline.heapUsed,
    afterHeapBytes: after.heapUsed,
    serverSessions: after.sessions,
    command: ['node', ...program.child.spawnargs.slice(1)].join(' '),
  };
  console.log(`  ${idleLabels[impl].padEnd(56)} ${fmt(figures.heapBytesPerSession / 1024).padStart(7)} KiB heap  ${fmt(figures.rssBytesPerSession / 1024).padStart(7)} KiB RSS per idle session (${after.sessions} open)`);
  return figures;
}

export async function runIdleSessionsBench(n: number, warmup: number, loader: Loader): Promise<IdleResult> {
  console.log(`heap per idle Streamable HTTP session: ${warmup} warm-up + ${n} sessions per server, each server a fresh child (loader ${loader})`);
  const figures: Partial<Record<IdleImpl, IdleFigures>> = {};
  for (const impl of idleImpls) figures[impl] = await measureIdle(impl, n, warmup, loader);
  return { n, warmup, loader, figures: figures as Record<IdleImpl, IdleFigures> };
}

if (isMain(import.meta.url)) {
  emitResult(await runIdleSessionsBench(argInt('n', 2_000), argInt('warmup', 200), argLoader()));
}
