/**
 * The official SDK servers of interop-sdk-servers.ts behind the SDKs' own Streamable HTTP server transports,
 * mounted on node:http on 127.0.0.1 in the test process, stateful (one McpServer per session, as the SDKs'
 * examples do):
 *   - 1.x: `StreamableHTTPServerTransport` (node:http flavour) with `handleRequest(req, res)`;
 *   - 2.x: `WebStandardStreamableHTTPServerTransport` (fetch Request/Response), bridged to node:http here
 *     (2.x ships no node:http transport of its own in @modelcontextprotocol/server);
 *   - 1.x, 2024-11-05 HTTP+SSE: `SSEServerTransport` (GET /sse opens a session, POST /messages?sessionId=...).
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { buildSdk1Server, buildSdk2Server } from './interop-sdk-servers.ts';

export interface SdkHttpServer {
  readonly url: string;
  /** Sessions open now. */
  readonly sessions: number;
  close(): Promise<void>;
}

interface SessionTransport {
  readonly sessionId?: string | undefined;
  close(): Promise<void>;
}

/** The session routing both SDK flavours share: a session id header selects the transport; none creates one. */
async function listen<T extends SessionTransport>(
  create: (register: (id: string, transport: T) => void, unregister: (id: string) => void) => Promise<T>,
  handle: (transport: T, req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<SdkHttpServer> {
  const transports = new Map<string, T>();
  const all = new Set<T>();
  const server = createServer((req, res) => {
    void (async () => {
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? transports.get(id) : undefined;
      if (transport === undefined && typeof id === 'string') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' } }));
        return;
      }
      if (transport === undefined) {
        transport = await create((sessionId, created) => transports.set(sessionId, created), (sessionId) => transports.delete(sessionId));
        all.add(transport);
      }
      await handle(transport, req, res);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get sessions() {
      return transports.size;
    },
    async close() {
      await Promise.all([...all].map((transport) => transport.close().catch(() => undefined)));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

export function serveSdk1Http(): Promise<SdkHttpServer> {
  return listen<StreamableHTTPServerTransport>(
    async (register, unregister) => {
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => register(id, transport),
        onsessionclosed: (id) => void unregister(id),
      });
      await buildSdk1Server().connect(transport);
      return transport;
    },
    (transport, req, res) => transport.handleRequest(req, res),
  );
}

/** `build` makes the McpServer of each session (default: the catalog of interop-sdk-servers.ts). */
export function serveSdk2Http(build: () => ReturnType<typeof buildSdk2Server> = buildSdk2Server): Promise<SdkHttpServer> {
  return listen<WebStandardStreamableHTTPServerTransport>(
    async (register, unregister) => {
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => register(id, transport),
        onsessionclosed: (id) => void unregister(id),
      });
      await build().connect(transport);
      return transport;
    },
    async (transport, req, res) => writeResponse(await transport.handleRequest(await toRequest(req, res)), res),
  );
}

/** The SDK 1.x HTTP+SSE server (2024-11-05 transport). `url` is the SSE endpoint (`/sse`). */
export async function serveSdk1LegacySse(): Promise<SdkHttpServer> {
  const sessions = new Map<string, SSEServerTransport>();
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method === 'GET' && url.pathname === '/sse') {
        const transport = new SSEServerTransport('/messages', res);
        sessions.set(transport.sessionId, transport);
        transport.onclose = () => void sessions.delete(transport.sessionId);
        await buildSdk1Server().connect(transport);
        return;
      }
      const transport = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (req.method === 'POST' && url.pathname === '/messages' && transport !== undefined) return transport.handlePostMessage(req, res);
      // Anything else, the Streamable HTTP probe (POST /sse) included: 405, which sends a client to HTTP+SSE.
      res.writeHead(req.method === 'POST' && url.pathname === '/messages' ? 404 : 405).end();
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    get sessions() {
      return sessions.size;
    },
    async close() {
      await Promise.all([...sessions.values()].map((transport) => transport.close().catch(() => undefined)));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

async function toRequest(req: IncomingMessage, res: ServerResponse): Promise<Request> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const aborted = new AbortController();
  res.once('close', () => aborted.abort());
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE';
  return new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`), {
    method: req.method ?? 'GET',
    headers,
    signal: aborted.signal,
    ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
  });
}

async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  res.once('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The client went away: the stream was cancelled.
  } finally {
    res.end();
  }
}
