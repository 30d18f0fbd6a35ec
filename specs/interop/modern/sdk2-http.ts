/**
 * The SDK 2.x dual-era HTTP entry, `createMcpHandler(factory)`, mounted on node:http on 127.0.0.1 in the test
 * process. The handler is web-standard (Request in, Response out); this adapter reads the body, builds the
 * Request (its signal aborts when the client goes away, which is how a modern request is cancelled), and
 * streams the Response back. Every request is recorded (method, MCP headers, body) for assertions.
 */
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { type Sdk2ServerFactoryOptions, sdk2ServerFactory } from './sdk2-modern-server.ts';

export interface SeenRequest {
  readonly method: string;
  readonly protocolVersion: string | undefined;
  readonly mcpMethod: string | undefined;
  readonly sessionId: string | undefined;
  readonly body: unknown;
  /** The HTTP status the handler answered with. */
  status?: number;
}

export interface Sdk2HttpServer {
  readonly url: string;
  readonly seen: readonly SeenRequest[];
  readonly errors: readonly string[];
  close(): Promise<void>;
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

export async function serveSdk2ModernHttp(options: Pick<Sdk2ServerFactoryOptions, 'resourceSubscribe'> = {}): Promise<Sdk2HttpServer> {
  const seen: SeenRequest[] = [];
  const errors: string[] = [];
  // The factory's add-tool publishes on the handler's bus: listen streams are served by other instances.
  const handler = createMcpHandler(
    sdk2ServerFactory({ ...options, onToolsChanged: () => handler.notify.toolsChanged(), onResourceUpdated: (uri) => handler.notify.resourceUpdated(uri) }),
    {
      onerror: (error) => void errors.push(error.message),
    },
  );

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let parsed: unknown;
    try {
      parsed = body.byteLength === 0 ? undefined : JSON.parse(body.toString('utf8'));
    } catch {
      parsed = body.toString('utf8');
    }
    const record: SeenRequest = {
      method: req.method ?? 'GET',
      protocolVersion: header(req, 'mcp-protocol-version'),
      mcpMethod: header(req, 'mcp-method'),
      sessionId: header(req, 'mcp-session-id'),
      body: parsed,
    };
    seen.push(record);
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
      else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`), {
      method: req.method ?? 'GET',
      headers,
      signal: gone.signal,
      ...(hasBody ? { body } : {}),
    });
    const response = await handler.fetch(request);
    record.status = response.status;
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body === null) {
      res.end();
      return;
    }
    res.flushHeaders();
    const stream = Readable.fromWeb(response.body as unknown as NodeReadableStream<Uint8Array>);
    stream.on('error', () => res.destroy());
    res.once('close', () => stream.destroy());
    stream.pipe(res);
  };

  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      errors.push(`adapter: ${String(error)}`);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    errors,
    async close() {
      await handler.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
