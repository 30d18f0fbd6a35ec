/**
 * The official SDK 2.x and tmcp server programs of the legacy-era transport benchmarks, started by
 * bench/transport-programs.ts (`--impl=sdk2|tmcp`), each serving the echo tool of bench/contenders-servers.ts:
 *
 * - stdio, SDK 2.x: `serveStdio(factory)` from '@modelcontextprotocol/server/stdio' (the opening exchange picks the
 *   era: an `initialize` request gets the legacy one, one instance pinned for the connection).
 * - stdio, tmcp: `new StdioTransport(server).listen()` from '@tmcp/transport-stdio'.
 * - http, SDK 2.x: one `McpServer` + `WebStandardStreamableHTTPServerTransport` per session (`sessionIdGenerator:
 *   randomUUID`, `enableJsonResponse` for `--mode=json`), the 2025-era sessionful wiring, as the SDK 1.x program does.
 *   (`createMcpHandler`'s own legacy serving is stateless: a fresh instance per request and no sessions.)
 * - http, tmcp: one `HttpTransport(server, { path: '/mcp' })` from '@tmcp/transport-http' for all sessions (it keeps
 *   each session's client info in its session manager); it answers every request on an SSE stream.
 * Both HTTP servers are web-standard (`Request` in, `Response` out); `listenFetch` puts them on node:http with the
 * same minimal adapter: the body read whole, a `Request` built from method, headers and body (its signal aborted
 * if the client goes away before the answer is whole), the `Response`'s status and headers written, its body piped with `Readable.fromWeb`.
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer as createNodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { newSdk2Server, newTmcpServer } from './contenders-servers.ts';

/** A running HTTP program, as bench/transport-programs.ts reports it. */
export interface ServedHttp {
  readonly url: string;
  /** Sessions the server holds (tmcp: initialize requests served; it never forgets a session). */
  sessions(): number;
  close(): Promise<void>;
}

export async function serveSdk2Stdio(): Promise<void> {
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  serveStdio(newSdk2Server, { onerror: (error) => process.stderr.write(`[sdk2 stdio] ${error.message}\n`) });
}

export async function serveTmcpStdio(): Promise<void> {
  const { StdioTransport } = await import('@tmcp/transport-stdio');
  new StdioTransport(newTmcpServer()).listen();
}

async function toRequest(req: IncomingMessage, res: ServerResponse): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const aborted = new AbortController();
  // The client went away before the answer was whole (a standalone GET stream closed, a call dropped).
  res.once('close', () => {
    if (!res.writableFinished) aborted.abort();
  });
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && chunks.length > 0;
  return new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
    method: req.method ?? 'POST',
    headers,
    signal: aborted.signal,
    ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
  });
}

function writeResponse(response: Response, res: ServerResponse): void {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  res.once('close', () => body.destroy());
  body.pipe(res);
}

/** Serves a web-standard handler on node:http at 127.0.0.1, any port. */
export async function listenFetch(handle: (request: Request) => Promise<Response>): Promise<{ url: string; close(): Promise<void> }> {
  const server = createNodeServer((req, res) => {
    toRequest(req, res).then(handle).then((response) => writeResponse(response, res)).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

export async function serveSdk2Http(mode: 'json' | 'sse'): Promise<ServedHttp> {
  const { WebStandardStreamableHTTPServerTransport } = await import('@modelcontextprotocol/server');
  type Sdk2Transport = InstanceType<typeof WebStandardStreamableHTTPServerTransport>;
  const transports = new Map<string, Sdk2Transport>();
  const handle = async (request: Request): Promise<Response> => {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const known = transports.get(id);
      if (known !== undefined) return known.handleRequest(request);
      return Response.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }, { status: 404 });
    }
    const created: Sdk2Transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: mode === 'json',
      onsessioninitialized: (sessionId) => void transports.set(sessionId, created),
    });
    created.onclose = () => {
      if (created.sessionId !== undefined) transports.delete(created.sessionId);
    };
    await newSdk2Server().connect(created);
    return created.handleRequest(request);
  };
  const node = await listenFetch(handle);
  return {
    url: node.url,
    sessions: () => transports.size,
    close: async () => {
      await Promise.all([...transports.values()].map((t) => t.close()));
      await node.close();
    },
  };
}

export async function serveTmcpHttp(): Promise<ServedHttp> {
  const { HttpTransport } = await import('@tmcp/transport-http');
  const server = newTmcpServer();
  let initialized = 0;
  server.on('initialize', () => void initialized++);
  const transport = new HttpTransport(server, { path: '/mcp' });
  const notFound = (): Response => new Response(null, { status: 404 });
  const node = await listenFetch(async (request) => (await transport.respond(request)) ?? notFound());
  return {
    url: node.url,
    sessions: () => initialized,
    close: async () => {
      await transport.close();
      await node.close();
    },
  };
}
