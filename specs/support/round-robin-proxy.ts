/**
 * The meanest load balancer for gateway replicas: a node:http proxy on 127.0.0.1 that sends EVERY request (POST,
 * GET streams, DELETE) to the next upstream in turn, never the same one twice in a row, with no session
 * affinity at all. Bodies and responses are streamed both ways unchanged (SSE included); a client that leaves
 * ends its upstream request too. It records where each request went, with its method and body, so a spec can
 * show that an answer to a server request reached another replica than the request that caused it.
 */
import { type IncomingMessage, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Routed {
  /** Index of the upstream the request went to. */
  readonly upstream: number;
  readonly method: string;
  /** The request body as text (empty for GET and DELETE). */
  readonly body: string;
  readonly sessionId: string | undefined;
  /** Its `Mcp-Param-*` headers (names in lower case). */
  readonly paramHeaders: Readonly<Record<string, string>>;
}

export interface RoundRobinProxy {
  /** The URL clients use: `http://127.0.0.1:<port><path>`. */
  readonly url: string;
  /** Every request so far, in arrival order. */
  readonly routed: readonly Routed[];
  close(): Promise<void>;
}

export async function roundRobinProxy(upstreams: readonly string[], path = '/mcp'): Promise<RoundRobinProxy> {
  if (upstreams.length < 2) throw new RangeError('a round-robin proxy needs at least two upstreams');
  const targets = upstreams.map((url) => new URL(url));
  const routed: Routed[] = [];
  let next = 0;
  const open = new Set<ServerResponse>();

  const relay = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const upstream = next;
    next = (next + 1) % targets.length;
    const target = targets[upstream] as URL;
    const sessionId = req.headers['mcp-session-id'];
    const paramHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (name.startsWith('mcp-param-') && typeof value === 'string') paramHeaders[name] = value;
    routed.push({ upstream, method: req.method ?? 'GET', body: body.toString('utf8'), sessionId: typeof sessionId === 'string' ? sessionId : undefined, paramHeaders });
    const headers = { ...req.headers, host: target.host };
    const outbound = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      res.flushHeaders();
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    outbound.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`upstream ${upstream}: ${error.message}`);
      else res.destroy();
    });
    // The client left (a stream it dropped): the replica sees its connection go too.
    res.on('close', () => {
      open.delete(res);
      outbound.destroy();
    });
    outbound.end(body);
  };

  const server = createServer((req, res) => {
    open.add(res);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Bounded: the specs' messages are small.
      if (size > 4 * 1024 * 1024) return void req.destroy();
      chunks.push(chunk);
    });
    req.on('end', () => relay(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    routed,
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
