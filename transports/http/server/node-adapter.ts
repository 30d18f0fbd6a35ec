/**
 * The node:http side of the request/response abstraction (also express, koa and anything else that hands over
 * an IncomingMessage and a ServerResponse).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyCollector, type BodyResult, type HeaderMap, type HttpRequest, type HttpResponder, type NativeRequest, type RefusalSink, type StreamSink } from './http-exchange.ts';

/** A request path URL parsing would keep as it is: no dot segments, escapes or other characters it rewrites. */
const PLAIN_PATH = /^\/[A-Za-z0-9_~/-]*$/;

class NodeRequest implements HttpRequest {
  readonly method: string;
  readonly path: string;
  readonly native: NativeRequest;
  private readonly target: string;
  private parsedUrl: URL | undefined;

  constructor(private readonly req: IncomingMessage, readonly parsedBody: { readonly value: unknown } | undefined) {
    this.method = req.method ?? 'GET';
    // express keeps the full path in originalUrl when a router strips its mount point from url.
    const path = (req as { originalUrl?: unknown }).originalUrl;
    this.target = typeof path === 'string' ? path : (req.url ?? '/');
    // The path is needed by every request, the rest of the URL by few: it is built only when asked for.
    const query = this.target.indexOf('?');
    const plain = query < 0 ? this.target : this.target.slice(0, query);
    this.path = PLAIN_PATH.test(plain) ? plain : this.url.pathname;
    this.native = { kind: 'node', request: req };
  }

  get url(): URL {
    // The base is a placeholder: the Host header is the client's word, checked separately.
    return (this.parsedUrl ??= new URL(this.target, 'http://localhost'));
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    if (value === undefined) return name === name.toLowerCase() ? undefined : this.header(name.toLowerCase());
    return Array.isArray(value) ? value.join(', ') : value;
  }

  headerNames(): readonly string[] {
    // node:http lower-cases the names it parses.
    return Object.keys(this.req.headers);
  }

  readBody(maxBytes: number): Promise<BodyResult> {
    const req = this.req;
    if (BodyCollector.tooLarge(req.headers['content-length'], maxBytes)) return Promise.resolve({ ok: false, reason: 'too-large' });
    if (req.readableEnded) return Promise.resolve({ ok: true, bytes: new Uint8Array(0) });
    return new Promise((resolve) => new BodyReader(req, maxBytes, resolve));
  }
}

/**
 * Reads one request body. Its listeners stay on the request once it settled (they then do nothing): the request
 * object goes when the exchange does, and not removing them saves four removals per request.
 */
class BodyReader {
  private readonly collector: BodyCollector;
  private settled = false;

  constructor(private readonly req: IncomingMessage, maxBytes: number, private readonly resolve: (result: BodyResult) => void) {
    this.collector = new BodyCollector(maxBytes);
    req.on('data', (chunk: Buffer) => this.onData(chunk));
    req.once('end', () => this.settle({ ok: true, bytes: this.collector.bytes() }));
    const gone = (): void => this.settle({ ok: false, reason: 'aborted' });
    req.once('error', gone);
    req.once('close', gone);
  }

  private onData(chunk: Buffer): void {
    if (this.settled || this.collector.push(chunk)) return;
    // Stop reading: nothing past the limit is buffered. The reply closes the connection (see respond).
    this.req.pause();
    this.settle({ ok: false, reason: 'too-large' });
  }

  private settle(result: BodyResult): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve(result);
  }
}

/** Streams opened this turn of the event loop: their headers are flushed on the next, by one immediate for all. */
let unflushed: NodeSink[] | undefined;

/**
 * Sends the headers of `sink`'s stream on the next turn unless something was written by then (which carried them).
 * `headersSent` cannot tell: it is true from `writeHead` on, while the headers wait for the first write.
 */
function flushSoon(sink: NodeSink): void {
  if (unflushed !== undefined) return void unflushed.push(sink);
  const batch = (unflushed = [sink]);
  setImmediate(() => {
    unflushed = undefined;
    for (const each of batch) each.flushHeadersIfQuiet();
  });
}

class NodeSink implements StreamSink {
  private ended = false;
  private closed = false;
  private wrote = false;
  private listeners: Array<(byPeer: boolean) => void> = [];

  constructor(private readonly res: ServerResponse) {
    // `on`, not `once` (no wrapper per stream): a response closes once, and a second call would find no listeners.
    res.on('close', () => {
      this.closed = true;
      const byPeer = !this.ended;
      for (const listener of this.listeners.splice(0)) listener(byPeer);
    });
  }

  get open(): boolean {
    return !this.ended && !this.closed && !this.res.destroyed;
  }

  write(chunk: string): boolean {
    if (!this.open) return true;
    this.wrote = true;
    return this.res.write(chunk);
  }

  /** A stream that stayed quiet since it opened gets its headers now (a client may wait for them). */
  flushHeadersIfQuiet(): void {
    if (!this.wrote && this.open) this.res.flushHeaders();
  }

  onDrain(listener: () => void): void {
    if (this.open) this.res.once('drain', listener);
    else listener();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.closed) this.res.end();
  }

  abort(): void {
    this.res.destroy();
  }

  onClose(listener: (byPeer: boolean) => void): void {
    if (this.closed) queueMicrotask(() => listener(!this.ended));
    else this.listeners.push(listener);
  }
}

class NodeResponder implements HttpResponder {
  private finished: boolean | undefined;
  private listeners: Array<(gone: boolean) => void> | undefined;

  constructor(private readonly req: IncomingMessage, private readonly res: ServerResponse, readonly refused: RefusalSink | undefined) {}

  respond(status: number, headers: HeaderMap, body?: string): void {
    const res = this.res;
    if (res.headersSent || res.destroyed) return;
    // One object handed to writeHead (its fast path: nothing set on the response before).
    const out: Record<string, string | number> = {};
    for (const name in headers) out[name] = headers[name] as string;
    // A body left unread (over the limit) must not be parsed as the next request: close the connection.
    if (!this.req.complete) out['connection'] = 'close';
    out['content-length'] = body === undefined ? 0 : Buffer.byteLength(body);
    res.writeHead(status, out);
    res.end(body);
  }

  openStream(status: number, headers: HeaderMap): StreamSink {
    const res = this.res;
    res.writeHead(status, headers);
    // Headers go out with the first event when one follows at once (a quick answer costs one write, not two);
    // a stream that stays quiet still gets its headers on the next turn of the event loop.
    const sink = new NodeSink(res);
    flushSoon(sink);
    return sink;
  }

  onFinished(listener: (gone: boolean) => void): void {
    const res = this.res;
    if (this.finished === undefined && res.closed) this.finished = !res.writableFinished;
    if (this.finished !== undefined) return listener(this.finished);
    if (this.listeners !== undefined) return void this.listeners.push(listener);
    // Listened for only when someone asks (most exchanges have one listener, or none).
    this.listeners = [listener];
    res.once('close', () => {
      this.finished = !res.writableFinished;
      const listeners = this.listeners ?? [];
      this.listeners = undefined;
      for (const each of listeners) each(this.finished);
    });
  }
}

/**
 * Adapts one node:http exchange. `parsedBody` (express.json()) is used when defined; `refused` counts the endpoint's
 * refusals (refusals.ts).
 */
export function adaptNode(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown, refused?: RefusalSink): [HttpRequest, HttpResponder] {
  return [new NodeRequest(req, parsedBody === undefined ? undefined : { value: parsedBody }), new NodeResponder(req, res, refused)];
}
