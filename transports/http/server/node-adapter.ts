/**
 * The node:http side of the request/response abstraction (also express, koa and anything else that hands over
 * an IncomingMessage and a ServerResponse).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyCollector, type BodyResult, type HeaderMap, type HttpRequest, type HttpResponder, type NativeRequest, type StreamSink } from './http-exchange.ts';

class NodeRequest implements HttpRequest {
  readonly method: string;
  readonly url: URL;
  readonly native: NativeRequest;

  constructor(private readonly req: IncomingMessage, readonly parsedBody: { readonly value: unknown } | undefined) {
    this.method = (req.method ?? 'GET').toUpperCase();
    // express keeps the full path in originalUrl when a router strips its mount point from url.
    const path = (req as { originalUrl?: unknown }).originalUrl;
    // The base is a placeholder: the Host header is the client's word, checked separately.
    this.url = new URL(typeof path === 'string' ? path : (req.url ?? '/'), 'http://localhost');
    this.native = { kind: 'node', request: req };
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  headerNames(): readonly string[] {
    // node:http lower-cases the names it parses.
    return Object.keys(this.req.headers);
  }

  readBody(maxBytes: number): Promise<BodyResult> {
    const req = this.req;
    if (BodyCollector.tooLarge(this.header('content-length'), maxBytes)) return Promise.resolve({ ok: false, reason: 'too-large' });
    if (req.readableEnded) return Promise.resolve({ ok: true, bytes: new Uint8Array(0) });
    return new Promise((resolve) => {
      const collector = new BodyCollector(maxBytes);
      const settle = (result: BodyResult): void => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onGone);
        req.off('close', onGone);
        resolve(result);
      };
      const onData = (chunk: Buffer): void => {
        if (collector.push(chunk)) return;
        // Stop reading: nothing past the limit is buffered. The reply closes the connection (see respond).
        req.pause();
        settle({ ok: false, reason: 'too-large' });
      };
      const onEnd = (): void => settle({ ok: true, bytes: collector.bytes() });
      const onGone = (): void => settle({ ok: false, reason: 'aborted' });
      req.on('data', onData);
      req.once('end', onEnd);
      req.once('error', onGone);
      req.once('close', onGone);
    });
  }
}

class NodeSink implements StreamSink {
  private ended = false;
  private closed = false;
  private listeners: Array<(byPeer: boolean) => void> = [];

  constructor(private readonly res: ServerResponse) {
    res.once('close', () => {
      this.closed = true;
      const byPeer = !this.ended;
      for (const listener of this.listeners.splice(0)) listener(byPeer);
    });
  }

  get open(): boolean {
    return !this.ended && !this.closed && !this.res.destroyed;
  }

  write(chunk: string): boolean {
    return this.open ? this.res.write(chunk) : true;
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
  private listeners: Array<(gone: boolean) => void> = [];

  constructor(private readonly req: IncomingMessage, private readonly res: ServerResponse) {
    res.once('close', () => {
      this.finished = !res.writableFinished;
      for (const listener of this.listeners.splice(0)) listener(this.finished);
    });
  }

  respond(status: number, headers: HeaderMap, body?: string): void {
    const res = this.res;
    if (res.headersSent || res.destroyed) return;
    const length = body === undefined ? 0 : Buffer.byteLength(body);
    // A body left unread (over the limit) must not be parsed as the next request: close the connection.
    const close = this.req.complete ? {} : { connection: 'close' };
    res.writeHead(status, { ...headers, ...close, 'content-length': String(length) });
    res.end(body);
  }

  openStream(status: number, headers: HeaderMap): StreamSink {
    const res = this.res;
    res.writeHead(status, headers);
    // Headers go out with the first event when one follows at once (a quick answer costs one write, not two);
    // a stream that stays quiet still gets its headers on the next turn of the event loop.
    setImmediate(() => {
      if (!res.headersSent && !res.destroyed) res.flushHeaders();
    });
    return new NodeSink(res);
  }

  onFinished(listener: (gone: boolean) => void): void {
    if (this.finished === undefined) this.listeners.push(listener);
    else listener(this.finished);
  }
}

/** Adapts one node:http exchange. `parsedBody` (express.json()) is used when defined. */
export function adaptNode(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): [HttpRequest, HttpResponder] {
  return [new NodeRequest(req, parsedBody === undefined ? undefined : { value: parsedBody }), new NodeResponder(req, res)];
}
