/**
 * One HTTP exchange, seen the same way whichever runtime carries it, and the body helpers around it.
 *
 * The parts of the client read a response through {@link HttpResponse}: the slice of node:http's
 * IncomingMessage they use, which IncomingMessage satisfies as it is (node-engine.ts) and which fetch-engine.ts
 * builds from a fetch `Response` for browsers, Deno, Bun and edge workers. So neither engine is imported here.
 */
import { utf8Bytes, utf8Text } from '../../../core/bytes.ts';
import { LocalError } from '../../../core/errors.ts';

export type HttpHeaders = Record<string, string>;

/**
 * The pool a request goes to: requests and streams, or answers, notifications and DELETE (which must never
 * queue behind the streams they unblock). The node engine keeps one agent per lane; fetch has one pool.
 */
export type HttpLane = 'main' | 'control';

export interface ExchangeSpec {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly url: URL;
  readonly headers: HttpHeaders;
  readonly lane: HttpLane;
  /** JSON text (what the transport sends), or bytes. */
  readonly body?: string | Uint8Array;
}

/** A request in flight; destroying it ends the exchange (its response, if any, closes incomplete). */
export interface HttpRequest {
  destroy(): void;
}

/** A response: its head, and its body as events ('data' chunks, then 'end' when complete, then 'close'). */
export interface HttpResponse {
  readonly statusCode?: number | undefined;
  readonly statusMessage?: string | undefined;
  /** Lower-case names. */
  readonly headers: { readonly [name: string]: string | string[] | undefined };
  /** The whole body arrived (false when it broke or was destroyed). */
  readonly complete: boolean;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'end' | 'close', listener: () => void): unknown;
  once(event: 'error', listener: (error: Error) => void): unknown;
  /** Reads and drops the body. */
  resume(): unknown;
  destroy(): unknown;
}

/** How the client makes requests: node:http agents, or fetch. */
export interface HttpEngine {
  /**
   * Starts one request and resolves with the response head. Rejects with a `TransportFailed` LocalError, or a
   * `RequestAborted` one when {@link HttpEngine.abort} ended it.
   */
  exchange(spec: ExchangeSpec, onRequest?: (request: HttpRequest) => void): Promise<HttpResponse>;
  /**
   * Ends a request on purpose (a cancellation, the transport closing): the connection is dropped, so the server
   * sees the client leave, and a request still waiting for its head rejects with `RequestAborted`.
   */
  abort(request: HttpRequest): void;
  /** Requests started and not yet over (for bookkeeping checks). */
  readonly inFlight: number;
  /** Aborts every request still running. */
  abortAll(): void;
  /** Releases what the engine owns (pooled sockets); called last, after the closing DELETE. */
  dispose(): void;
}

/** The media type of a response, lower case, without parameters ("text/event-stream"). */
export function mediaType(response: HttpResponse): string {
  const raw = response.headers['content-type'] ?? '';
  const header = Array.isArray(raw) ? (raw[0] ?? '') : raw;
  const end = header.indexOf(';');
  return (end < 0 ? header : header.slice(0, end)).trim().toLowerCase();
}

/** One header's value (the first, if repeated). */
export function headerValue(response: HttpResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Reads a whole body, up to `maxBytes` (larger bodies reject with `FrameTooLarge` and are dropped). */
export function readBody(response: HttpResponse, maxBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let length = 0;
    response.on('data', (chunk) => {
      length += chunk.byteLength;
      if (length > maxBytes) {
        response.destroy();
        reject(new LocalError('FrameTooLarge', `an HTTP body exceeds the frame limit of ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    response.once('end', () => resolve(concat(chunks, length)));
    response.once('error', (error) => reject(new LocalError('TransportFailed', `reading an HTTP body failed: ${error.message}`, { cause: error })));
    response.once('close', () => {
      if (!response.complete) reject(new LocalError('TransportFailed', 'the connection closed before the HTTP body was complete'));
    });
  });
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const whole = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}

/** Consumes and drops a body, so the connection goes back to the keep-alive pool. */
export function discardBody(response: HttpResponse): void {
  response.resume();
}

/** Resolves once the response is over (read to its end, broken or destroyed). */
export function closed(response: HttpResponse): Promise<void> {
  return new Promise((resolve) => response.once('close', resolve));
}

/** The start of a body, for error messages (bounded, one line). */
export async function bodyExcerpt(response: HttpResponse, maxChars = 200): Promise<string> {
  let text: string;
  try {
    text = utf8Text(await readBody(response, 64 * 1024));
  } catch {
    return '';
  }
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > maxChars ? `${line.slice(0, maxChars)}...` : line;
}

/** Parses JSON (UTF-8 bytes, or text already decoded); an error when it is not JSON. */
export function parseJson(source: Uint8Array | string): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: LocalError } {
  const text = typeof source === 'string' ? source : utf8Text(source);
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const bytes = typeof source === 'string' ? utf8Bytes(source).byteLength : source.byteLength;
    return { ok: false, error: new LocalError('DecodeFailed', `malformed JSON in a ${bytes}-byte HTTP body`, { cause: error }) };
  }
}

/** "HTTP 500 Internal Server Error". */
export function statusLine(response: HttpResponse): string {
  const reason = response.statusMessage === undefined || response.statusMessage === '' ? '' : ` ${response.statusMessage}`;
  return `HTTP ${response.statusCode ?? 0}${reason}`;
}
