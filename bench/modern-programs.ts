/**
 * The official SDK 2.x server programs of bench/modern-calls.ts, serving the echo tool of bench/echo-tool.ts
 * (input `{ text, count, upper }`, one text block) in the modern era (2026-07-28), each run as a child process:
 *
 *   node --import tsx bench/modern-programs.ts --transport=stdio
 *   node --import tsx bench/modern-programs.ts --transport=http
 *
 * stdio: `serveStdio(factory)` from '@modelcontextprotocol/server/stdio' (the opening exchange picks the era; one
 * instance from the factory is pinned for the connection). http (127.0.0.1, any port): `createMcpHandler(factory)`
 * from '@modelcontextprotocol/server' (its defaults: a fresh instance from the factory per modern request,
 * responseMode 'auto'), whose web-standard `fetch(Request)` is put on node:http by a minimal adapter: the body read
 * whole, a `Request` built from method, headers and body, the `Response`'s status and headers written, its body
 * piped with `Readable.fromWeb`. The factory registers the tool with the same zod 4 schema object each time.
 * rxmcp's servers and the floors are bench/transport-programs.ts, the ones the legacy benchmarks run.
 * An http program prints `@@ {"url":...}` once listening and stops when stdin ends (as bench/transport-programs.ts).
 */
import { type IncomingMessage, type ServerResponse, createServer as createNodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { argValue } from './lib.ts';
import { echoZodShape } from './echo-zod.ts';
import { echo, serverInfo } from './echo-tool.ts';

const inputSchema = z.object(echoZodShape());
const newServer = (): McpServer => {
  const server = new McpServer(serverInfo, { capabilities: { tools: {} } });
  server.registerTool('echo', { inputSchema }, echo);
  return server;
};

async function serveHttp(): Promise<void> {
  const handler = createMcpHandler(newServer, { onerror: (error) => console.error(`[sdk2 http] ${error.message}`) });
  const adapt = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const response = await handler.fetch(new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
      method: req.method ?? 'POST',
      headers,
      ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
    }));
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      out[name] = value;
    });
    res.writeHead(response.status, out);
    if (response.body === null) {
      res.end();
      return;
    }
    const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    res.once('close', () => body.destroy());
    body.pipe(res);
  };
  const server = createNodeServer((req, res) => {
    adapt(req, res).catch((error: unknown) => (res.headersSent ? res.destroy() : res.writeHead(500).end(String(error))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdin.resume();
  process.stdin.once('end', () => {
    void handler.close().then(() => {
      server.closeAllConnections();
      server.close(() => process.exit(0));
    });
  });
  process.stdout.write(`@@ ${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` })}\n`);
}

const transport = argValue('transport');
if (transport === 'stdio') {
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  serveStdio(newServer, { onerror: (error) => process.stderr.write(`[sdk2 stdio] ${error.message}\n`) });
} else if (transport === 'http') {
  await serveHttp();
} else {
  throw new RangeError(`--transport must be stdio or http, got ${String(transport)}`);
}
