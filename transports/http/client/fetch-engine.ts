/**
 * The HTTP engine on the web-standard `fetch`, for runtimes without node:http: browsers, Deno, edge workers
 * (Bun has both). Each request has its own AbortController (no signal is shared, so none collects
 * listeners). A fetch `Response` is adapted to the client's {@link HttpResponse}: its body is pumped from
 * the stream reader once someone listens for data (or resumes it to drop it), as a node response flows.
 */
import { LocalError } from '../../../core/errors.ts';
import type { ExchangeSpec, HttpEngine, HttpRequest, HttpResponse } from './http-exchange.ts';

// Called through globalThis: a browser's fetch called without its global as `this` throws "Illegal invocation".
const globalFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);

export function createFetchEngine(fetchFunction: typeof fetch = globalFetch): HttpEngine {
  if (typeof globalThis.fetch !== 'function' && fetchFunction === globalFetch) throw new TypeError('this runtime has no fetch; pass one in the fetch option');
  const active = new Set<FetchRequest>();
  const abort = (request: HttpRequest): void => {
    if (request instanceof FetchRequest) request.abandoned = true;
    request.destroy();
  };

  return {
    async exchange(spec: ExchangeSpec, onRequest?: (request: HttpRequest) => void): Promise<HttpResponse> {
      const request = new FetchRequest();
      active.add(request);
      onRequest?.(request);
      let response: Response;
      try {
        if (request.controller.signal.aborted) throw new DOMException('aborted before it started', 'AbortError');
        response = await fetchFunction(spec.url, {
          method: spec.method,
          headers: spec.headers,
          // A view, not the caller's whole buffer (a Uint8Array may be a slice of a larger pool).
          ...(spec.body === undefined ? {} : { body: typeof spec.body === 'string' ? spec.body : spec.body.slice() }),
          signal: request.controller.signal,
        });
      } catch (error) {
        active.delete(request);
        if (request.abandoned) throw new LocalError('RequestAborted', `${spec.method} ${spec.url.href} was aborted`, { cause: error });
        const message = error instanceof Error ? error.message : String(error);
        throw new LocalError('TransportFailed', `${spec.method} ${spec.url.href} failed: ${message}`, { cause: error });
      }
      return new FetchResponse(response, request, () => active.delete(request));
    },
    abort,
    get inFlight() {
      return active.size;
    },
    abortAll() {
      for (const request of [...active]) abort(request);
    },
    dispose() {
      // fetch pools connections itself: nothing of ours to release.
    },
  };
}

class FetchRequest implements HttpRequest {
  readonly controller = new AbortController();
  abandoned = false;

  destroy(): void {
    this.controller.abort();
  }
}

type Listener<T extends unknown[]> = (...args: T) => void;

class FetchResponse implements HttpResponse {
  readonly statusCode: number;
  readonly statusMessage: string;
  readonly headers: { readonly [name: string]: string };
  complete = false;
  private readonly dataListeners: Listener<[Uint8Array]>[] = [];
  private readonly errorListeners: Listener<[Error]>[] = [];
  private readonly endListeners: Listener<[]>[] = [];
  private readonly closeListeners: Listener<[]>[] = [];
  private flowing = false;
  private isClosed = false;

  constructor(
    private readonly response: Response,
    private readonly request: FetchRequest,
    private readonly finished: () => void,
  ) {
    this.statusCode = response.status;
    this.statusMessage = response.statusText;
    const headers: Record<string, string> = {};
    // Headers iterates lower-case names, with repeated headers already joined.
    response.headers.forEach((value, name) => (headers[name] = value));
    this.headers = headers;
  }

  on(event: 'data', listener: (chunk: Uint8Array) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  on(event: 'data' | 'error', listener: Listener<[Uint8Array]> | Listener<[Error]>): this {
    if (event === 'data') {
      this.dataListeners.push(listener as Listener<[Uint8Array]>);
      this.flow();
    } else {
      this.errorListeners.push(listener as Listener<[Error]>);
    }
    return this;
  }

  once(event: 'end' | 'close', listener: () => void): this;
  once(event: 'error', listener: (error: Error) => void): this;
  once(event: 'end' | 'close' | 'error', listener: Listener<[]> | Listener<[Error]>): this {
    // Each of these is emitted at most once, so `once` and `on` are the same here.
    if (event === 'error') this.errorListeners.push(listener as Listener<[Error]>);
    else if (event === 'end') this.endListeners.push(listener as Listener<[]>);
    else if (this.isClosed) queueMicrotask(listener as Listener<[]>);
    else this.closeListeners.push(listener as Listener<[]>);
    return this;
  }

  resume(): this {
    this.flow();
    return this;
  }

  destroy(): this {
    this.request.destroy();
    // A body nobody reads would never notice the abort: cancel it, and close now.
    if (!this.flowing) {
      void this.response.body?.cancel().catch(() => undefined);
      this.close();
    }
    return this;
  }

  /** Starts reading, on a later microtask, so that listeners attached in the same turn all see the first chunk. */
  private flow(): void {
    if (this.flowing || this.isClosed) return;
    this.flowing = true;
    queueMicrotask(() => void this.pump());
  }

  private async pump(): Promise<void> {
    const body = this.response.body;
    try {
      if (body !== null) {
        const reader = body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (const listener of this.dataListeners) listener(value);
        }
      }
      this.complete = true;
      for (const listener of this.endListeners) listener();
    } catch (error) {
      // An abort we asked for is not an error of the response: it just ends incomplete, as in node:http.
      if (!this.request.controller.signal.aborted) {
        const failure = error instanceof Error ? error : new Error(String(error));
        for (const listener of this.errorListeners) listener(failure);
      }
    }
    this.close();
  }

  private close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.finished();
    for (const listener of this.closeListeners) listener();
  }
}
