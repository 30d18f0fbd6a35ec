/**
 * Puts a web-standard `(Request) => Promise<Response>` handler on a real socket of 127.0.0.1 (port 0), the way
 * hono's node server or Deno.serve would: each node:http request becomes a `Request` (its signal aborted when
 * the client goes), the `Response` is written back with its body streamed. Lets the specs drive the fetch
 * handler with a real HTTP client, exactly as they drive the node adapter.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

export interface FetchListener extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  close(): Promise<void>;
}

export async function listenFetch(handle: (request: Request) => Promise<Response>, observe?: (req: IncomingMessage, res: ServerResponse) => void): Promise<FetchListener> {
  const server: Server = createServer((req, res) => {
    observe?.(req, res);
    void bridge(handle, req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { origin, close, [Symbol.asyncDispose]: close };
}

async function bridge(handle: (request: Request) => Promise<Response>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const aborted = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) aborted.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const withBody = req.method === 'POST';
  const init: RequestInit & { duplex?: 'half' } = {
    method: req.method ?? 'GET',
    headers,
    signal: aborted.signal,
    ...(withBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  };
  const response = await handle(new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, init));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null || req.method === 'HEAD') {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.once('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}
