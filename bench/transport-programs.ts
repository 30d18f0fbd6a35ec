/**
 * The server programs of the transport benchmarks, each serving the echo tool of bench/echo-tool.ts (input
 * `{ text, count, upper }`), run as child processes by bench/stdio-calls.ts, bench/http-calls.ts and
 * bench/http-idle-sessions.ts:
 *
 *   node --import tsx bench/transport-programs.ts --transport=stdio --impl=rxmcp|sdk|sdk2|tmcp|floor
 *   node --import tsx bench/transport-programs.ts --transport=http --impl=rxmcp|sdk|sdk2|tmcp|floor [--mode=json|sse] [--max-sessions=1000]
 *
 * stdio: rxmcp `createServer()` + `serveStdio`; SDK `McpServer` + `StdioServerTransport`; floor: reads
 * newline-delimited JSON-RPC, parses each line and writes one answer line (no checks, no handshake).
 * http (127.0.0.1, any port): rxmcp `createStreamableHttpServer({ server, responseMode }).listen(0)`; SDK one
 * `McpServer` + `StreamableHTTPServerTransport` per session on node:http (as its docs do), with
 * `enableJsonResponse` for `--mode=json`; floor: node:http, parses the POSTed JSON, answers JSON.
 * sdk2 (the official SDK 2.x, legacy era) and tmcp: bench/contenders-programs.ts.
 * An http program prints `@@ {"url":...}` once listening, answers `measure` on stdin with
 * `@@ {"heapUsed","rss","sessions"}` (after gc when run with --expose-gc), `snapshot` with `@@ {"path"}` (a heap
 * snapshot written after the same gc, for bench/http-session-breakdown.ts) and stops when stdin ends.
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer as createNodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { argInt, argValue } from './lib.ts';
import { echo, type EchoArgs, echoJsonSchema, serverInfo } from './echo-tool.ts';

const transport = argValue('transport');
const impl = argValue('impl');
const mode = argValue('mode') === 'json' ? 'json' : 'sse';

type Floor = { id: number; params: { arguments: EchoArgs } };
const floorAnswer = (message: Floor): string => JSON.stringify({ jsonrpc: '2.0', id: message.id, result: echo(message.params.arguments) });

async function rxmcpServer() {
  const { createServer } = await import('../index.ts');
  const server = createServer(serverInfo);
  server.tool({ name: 'echo', inputSchema: echoJsonSchema() }, (a) => echo(a as unknown as EchoArgs));
  return server;
}

async function sdkServerFactory() {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { echoZodShape } = await import('./echo-zod.ts');
  const shape = echoZodShape();
  return () => {
    const server = new McpServer(serverInfo);
    server.registerTool('echo', { inputSchema: shape }, echo);
    return server;
  };
}

async function serveStdio(): Promise<void> {
  if (impl === 'rxmcp') {
    const { serveStdio } = await import('../transports/stdio/index.ts');
    await serveStdio(await rxmcpServer());
  } else if (impl === 'sdk2') {
    await (await import('./contenders-programs.ts')).serveSdk2Stdio();
  } else if (impl === 'tmcp') {
    await (await import('./contenders-programs.ts')).serveTmcpStdio();
  } else if (impl === 'sdk') {
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    await (await sdkServerFactory())().connect(new StdioServerTransport());
  } else {
    let buffered = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        process.stdout.write(`${floorAnswer(JSON.parse(line) as Floor)}\n`);
      }
    });
  }
}

interface Served {
  readonly url: string;
  sessions(): number;
  close(): Promise<void>;
}

async function listenNode(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = createNodeServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

async function serveHttp(): Promise<Served> {
  if (impl === 'rxmcp') {
    const { createStreamableHttpServer } = await import('../transports/http/index.ts');
    const http = createStreamableHttpServer({ server: await rxmcpServer(), responseMode: mode, maxSessions: argInt('max-sessions', 1000) });
    const listening = await http.listen(0);
    return { url: listening.url, sessions: () => http.sessionCount, close: () => http.close() };
  }
  if (impl === 'sdk2') return (await import('./contenders-programs.ts')).serveSdk2Http(mode);
  if (impl === 'tmcp') return (await import('./contenders-programs.ts')).serveTmcpHttp();
  if (impl === 'sdk') {
    const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
    const newServer = await sdkServerFactory();
    const transports = new Map<string, InstanceType<typeof StreamableHTTPServerTransport>>();
    const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      const id = req.headers['mcp-session-id'];
      if (typeof id === 'string') {
        const known = transports.get(id);
        if (known !== undefined) return known.handleRequest(req, res);
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
        return;
      }
      const created: InstanceType<typeof StreamableHTTPServerTransport> = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: mode === 'json',
        onsessioninitialized: (sessionId) => void transports.set(sessionId, created),
      });
      created.onclose = () => {
        if (created.sessionId !== undefined) transports.delete(created.sessionId);
      };
      await newServer().connect(created);
      return created.handleRequest(req, res);
    };
    const node = await listenNode((req, res) => {
      handle(req, res).catch((error: unknown) => (res.headersSent ? res.destroy() : res.writeHead(500).end(String(error))));
    });
    return {
      url: node.url,
      sessions: () => transports.size,
      close: async () => {
        await Promise.all([...transports.values()].map((t) => t.close()));
        await node.close();
      },
    };
  }
  const node = await listenNode((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.once('end', () => {
      const answer = floorAnswer(JSON.parse(body) as Floor);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      res.end(answer);
    });
  });
  return { url: node.url, sessions: () => 0, close: () => node.close() };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 50));
}

if (impl !== 'rxmcp' && impl !== 'sdk' && impl !== 'sdk2' && impl !== 'tmcp' && impl !== 'floor') {
  throw new RangeError(`--impl must be rxmcp, sdk, sdk2, tmcp or floor, got ${String(impl)}`);
}
if (transport === 'stdio') {
  await serveStdio();
} else if (transport === 'http') {
  const served = await serveHttp();
  const reply = (value: object): void => void process.stdout.write(`@@ ${JSON.stringify(value)}\n`);
  let buffered = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const word = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (word !== 'measure' && word !== 'snapshot') continue;
      void (async () => {
        await settle();
        globalThis.gc?.();
        globalThis.gc?.();
        if (word === 'snapshot') return reply({ path: writeHeapSnapshot(join(tmpdir(), `rxmcp-bench-${process.pid}-${Date.now()}.heapsnapshot`)), sessions: served.sessions() });
        const { heapUsed, rss } = process.memoryUsage();
        reply({ heapUsed, rss, sessions: served.sessions() });
      })();
    }
  });
  process.stdin.once('end', () => void served.close().then(() => process.exit(0)));
  reply({ url: served.url });
} else {
  throw new RangeError(`--transport must be stdio or http, got ${String(transport)}`);
}
