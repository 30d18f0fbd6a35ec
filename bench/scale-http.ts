/**
 * Scale, figure 4: N concurrent idle Streamable HTTP sessions on one server, memory per idle session. The method of
 * bench/http-idle-sessions.ts at larger counts. A benchmark, not a test.
 *
 *   npx tsx bench/scale-http.ts --impl=rxmcp|sdk [--n=10000] [--warmup=200] [--clients=16]
 *
 * The server is a fresh child process, `node --expose-gc --max-old-space-size=8192 --import tsx
 * bench/transport-programs.ts --transport=http --impl=rxmcp|sdk --mode=sse --max-sessions=<n + warmup + 100>`
 * (rxmcp: `createStreamableHttpServer` with its default responseMode 'sse' and `maxSessions` raised; SDK 1.x: one
 * `McpServer` + `StreamableHTTPServerTransport` per session, SSE answers). This process is the client, so nothing of
 * the client lands in the server's heap: raw node:http POSTs on a keep-alive agent (`--clients` sockets, as many
 * handshakes at a time): `initialize` (2025-11-25, the answer read whole), then `notifications/initialized` with
 * the session id (202), then the agent's sockets are destroyed. First `--warmup` sessions (kept), then the server
 * settles, runs gc twice and reports heapUsed/RSS (baseline); then N sessions the same way, and again.
 * Per session = (after - baseline) / N; the server must count warmup + N sessions open at the end.
 */
import { Agent } from 'node:http';
import { argInt, argValue, emitResult, fmt, isMain } from './lib.ts';
import { clocked, pool, scaleNodeArgs } from './scale-lib.ts';
import { Program, postJson } from './transport-lib.ts';

export type HttpScaleImpl = 'rxmcp' | 'sdk';

export interface HttpScaleFigures {
  readonly impl: HttpScaleImpl;
  readonly n: number;
  readonly warmup: number;
  readonly clients: number;
  readonly heapBytesPerSession: number;
  readonly rssBytesPerSession: number;
  readonly baselineHeapBytes: number;
  readonly afterHeapBytes: number;
  readonly baselineRssBytes: number;
  readonly afterRssBytes: number;
  /** Wall-clock time to open the N sessions, `clients` at a time. */
  readonly openMs: number;
  /** Sessions the server holds at the end: warmup + n. */
  readonly serverSessions: number;
  readonly command: string;
}

const protocolVersion = '2025-11-25';
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-client', version: '0.0.0' } },
};
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

async function openSession(agent: Agent, url: URL): Promise<void> {
  const answer = await postJson(agent, url, initialize);
  const id = answer.headers['mcp-session-id'];
  if (answer.status !== 200 || typeof id !== 'string' || !answer.body.includes('"result"')) {
    throw new Error(`initialize answered ${answer.status}: ${answer.body.slice(0, 200)}`);
  }
  const note = await postJson(agent, url, initialized, { 'mcp-session-id': id, 'mcp-protocol-version': protocolVersion });
  if (note.status !== 202) throw new Error(`notifications/initialized answered ${note.status}: ${note.body.slice(0, 200)}`);
}

async function openSessions(url: URL, count: number, clients: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  await pool(count, clients, () => openSession(agent, url));
  agent.destroy();
}

interface ServerMemory {
  readonly heapUsed: number;
  readonly rss: number;
  readonly sessions: number;
}

export async function measureHttpScale(impl: HttpScaleImpl, n: number, warmup: number, clients = 16): Promise<HttpScaleFigures> {
  const args = ['--transport=http', `--impl=${impl}`, '--mode=sse', `--max-sessions=${n + warmup + 100}`];
  // scaleNodeArgs ends with the tsx loader, which Program.start adds itself.
  const program = Program.start('tsx', args, scaleNodeArgs.slice(0, 2));
  try {
    const url = new URL(String((await program.ready)['url']));
    await openSessions(url, warmup, clients);
    const baseline = (await program.command('measure')) as unknown as ServerMemory;
    const opened = await clocked(() => openSessions(url, n, clients));
    const after = (await program.command('measure')) as unknown as ServerMemory;
    if (after.sessions !== n + warmup) throw new Error(`${impl}: the server holds ${after.sessions} sessions, expected ${n + warmup}`);
    const figures: HttpScaleFigures = {
      impl,
      n,
      warmup,
      clients,
      heapBytesPerSession: (after.heapUsed - baseline.heapUsed) / n,
      rssBytesPerSession: (after.rss - baseline.rss) / n,
      baselineHeapBytes: baseline.heapUsed,
      afterHeapBytes: after.heapUsed,
      baselineRssBytes: baseline.rss,
      afterRssBytes: after.rss,
      openMs: opened.wallMs,
      serverSessions: after.sessions,
      command: ['node', ...program.child.spawnargs.slice(1)].join(' '),
    };
    console.log(`  [http ${impl}] ${fmt(n, 0)} idle sessions: ${fmt(figures.heapBytesPerSession, 0)} B heap, ${fmt(figures.rssBytesPerSession, 0)} B RSS per session; ` +
      `heapUsed ${fmt(baseline.heapUsed / 1048576)} -> ${fmt(after.heapUsed / 1048576)} MiB; opened in ${fmt(opened.wallMs / 1000)} s (${after.sessions} open)`);
    return figures;
  } finally {
    await program.stop();
  }
}

if (isMain(import.meta.url)) {
  const impl = argValue('impl');
  if (impl !== 'rxmcp' && impl !== 'sdk') throw new RangeError(`--impl must be rxmcp or sdk, got ${String(impl)}`);
  emitResult(await measureHttpScale(impl, argInt('n', 10_000), argInt('warmup', 200), argInt('clients', 16)));
}
