/**
 * The web-standard side of the request/response abstraction: a fetch `Request` in, a `Response` out (its body a
 * ReadableStream for event streams). For hono, fastify (through its fetch bridge), Deno, Bun, workers.
 */
import { BodyCollector, type BodyResult, type HeaderMap, type HttpRequest, type HttpResponder, type NativeRequest, type RefusalSink, type StreamSink } from './http-exchange.ts';

/** Bytes an event stream may queue for a slow reader before writes report a full buffer. */
const STREAM_HIGH_WATER_MARK = 64 * 1024;
const encoder = new TextEncoder();

class FetchRequest implements HttpRequest {
  readonly method: string;
  readonly url: URL;
  readonly path: string;
  readonly native: NativeRequest;
  readonly parsedBody = undefined;

  constructor(private readonly request: Request) {
    this.method = request.method.toUpperCase();
    this.url = new URL(request.url);
    this.path = this.url.pathname;
    this.native = { kind: 'fetch', request };
  }

  header(name: string): string | undefined {
    const value = this.request.headers.get(name) ?? undefined;
    // Hosts that build the Request themselves took its URL's authority from the Host header; some drop the header.
    return value === undefined && name.toLowerCase() === 'host' ? this.url.host : value;
  }

  headerNames(): readonly string[] {
    // A Headers object iterates its names lower-cased, in order, each once.
    return [...this.request.headers.keys()];
  }

  async readBody(maxBytes: number): Promise<BodyResult> {
    const body = this.request.body;
    if (BodyCollector.tooLarge(this.header('content-length'), maxBytes)) {
      await body?.cancel().catch(() => undefined);
      return { ok: false, reason: 'too-large' };
    }
    if (body === null) return { ok: true, bytes: new Uint8Array(0) };
    const reader = body.getReader();
    const collector = new BodyCollector(maxBytes);
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return { ok: true, bytes: collector.bytes() };
        if (!collector.push(value)) {
          await reader.cancel().catch(() => undefined);
          return { ok: false, reason: 'too-large' };
        }
      }
    } catch {
      return { ok: false, reason: 'aborted' };
    }
  }
}

class FetchSink implements StreamSink {
  readonly readable: ReadableStream<Uint8Array>;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private state: 'open' | 'ended' | 'gone' = 'open';
  private drainListeners: Array<() => void> = [];
  private closeListeners: Array<(byPeer: boolean) => void> = [];

  constructor() {
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => void (this.controller = controller),
        pull: () => {
          for (const listener of this.drainListeners.splice(0)) listener();
        },
        cancel: () => this.close('gone'),
      },
      { highWaterMark: STREAM_HIGH_WATER_MARK, size: (chunk) => chunk.byteLength },
    );
  }

  get open(): boolean {
    return this.state === 'open';
  }

  write(chunk: string): boolean {
    if (!this.open || this.controller === undefined) return true;
    this.controller.enqueue(encoder.encode(chunk));
    return (this.controller.desiredSize ?? 0) > 0;
  }

  onDrain(listener: () => void): void {
    if (!this.open || (this.controller?.desiredSize ?? 1) > 0) listener();
    else this.drainListeners.push(listener);
  }

  end(): void {
    if (!this.open) return;
    this.controller?.close();
    this.close('ended');
  }

  abort(): void {
    if (!this.open) return;
    this.controller?.error(new Error('The client stopped reading the event stream'));
    this.close('gone');
  }

  onClose(listener: (byPeer: boolean) => void): void {
    if (this.open) this.closeListeners.push(listener);
    else queueMicrotask(() => listener(this.state === 'gone'));
  }

  private close(state: 'ended' | 'gone'): void {
    if (!this.open) return;
    this.state = state;
    for (const listener of this.drainListeners.splice(0)) listener();
    for (const listener of this.closeListeners.splice(0)) listener(state === 'gone');
  }
}

class FetchResponder implements HttpResponder {
  readonly response: Promise<Response>;
  private resolve!: (response: Response) => void;
  private started = false;
  private finished: boolean | undefined;
  private listeners: Array<(gone: boolean) => void> = [];

  constructor(request: Request, readonly refused: RefusalSink | undefined) {
    this.response = new Promise((resolve) => (this.resolve = resolve));
    // The host aborts the request's signal when the client disconnects (before or while we answer).
    request.signal.addEventListener('abort', () => this.finish(true), { once: true });
  }

  respond(status: number, headers: HeaderMap, body?: string): void {
    if (this.started) return;
    this.started = true;
    this.resolve(new Response(body === undefined ? null : body, { status, headers }));
    this.finish(false);
  }

  openStream(status: number, headers: HeaderMap): StreamSink {
    this.started = true;
    const sink = new FetchSink();
    sink.onClose((byPeer) => this.finish(byPeer));
    this.resolve(new Response(sink.readable, { status, headers }));
    return sink;
  }

  onFinished(listener: (gone: boolean) => void): void {
    if (this.finished === undefined) this.listeners.push(listener);
    else listener(this.finished);
  }

  private finish(gone: boolean): void {
    if (this.finished !== undefined) return;
    this.finished = gone;
    for (const listener of this.listeners.splice(0)) listener(gone);
  }
}

/**
 * Adapts one fetch exchange; the Response settles once the endpoint answers (at once for event streams). `refused`
 * counts the endpoint's refusals (refusals.ts).
 */
export function adaptFetch(request: Request, refused?: RefusalSink): [HttpRequest, HttpResponder & { readonly response: Promise<Response> }] {
  return [new FetchRequest(request), new FetchResponder(request, refused)];
}
