/**
 * The small request/response abstraction the protocol is written against once. The node:http adapter
 * (node-adapter.ts) and the fetch adapter (fetch-adapter.ts) each implement it; nothing else in the server
 * knows which one is in use.
 */
import type { IncomingMessage } from 'node:http';

/** The request as the host framework gave it, for `authenticate` hooks that need more than headers. */
export type NativeRequest =
  | { readonly kind: 'node'; readonly request: IncomingMessage }
  | { readonly kind: 'fetch'; readonly request: Request };

/** What `authenticate` sees of a request. */
export interface HttpRequestInfo {
  /** Upper case. */
  readonly method: string;
  /** Path and query; the origin part is whatever the Host header said (do not trust it). */
  readonly url: URL;
  /** A header's value (repeated headers joined with ", "); the name is case-insensitive. */
  header(name: string): string | undefined;
  readonly native: NativeRequest;
}

export type BodyResult =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly reason: 'too-large' | 'aborted' };

export interface HttpRequest extends HttpRequestInfo {
  /** `url.pathname`, read without building the URL when the request line allows it (the per-request path). */
  readonly path: string;
  /** The names of the headers the request carried, lower case, each once. */
  headerNames(): readonly string[];
  /** A body a framework already parsed (express.json()): used instead of reading the stream. */
  readonly parsedBody: { readonly value: unknown } | undefined;
  /**
   * Reads the body, counting bytes as they arrive: past `maxBytes` it stops reading (never buffering more than
   * that) and reports `too-large`. Call at most once.
   */
  readBody(maxBytes: number): Promise<BodyResult>;
}

export type HeaderMap = Readonly<Record<string, string>>;

/** An open streamed response body. */
export interface StreamSink {
  /** Whether the stream can still take writes. */
  readonly open: boolean;
  /** Writes text. Returns false when the medium's buffer is full: wait for `onDrain` before writing more. */
  write(chunk: string): boolean;
  /** Runs `listener` once the buffer has room again (or the stream closed). */
  onDrain(listener: () => void): void;
  /** Ends the body normally. */
  end(): void;
  /** Drops the connection (a client that stopped reading). */
  abort(): void;
  /** Runs once when the stream is over; `byPeer` is true when the client went away before `end`. */
  onClose(listener: (byPeer: boolean) => void): void;
}

export interface HttpResponder {
  /** A complete response; an empty body when `body` is undefined. Ignored once a response was started. */
  respond(status: number, headers: HeaderMap, body?: string): void;
  /** Starts a streamed response (headers are flushed at once). */
  openStream(status: number, headers: HeaderMap): StreamSink;
  /** Runs once when the exchange is over: the response completed, or (`gone`) the client went away first. */
  onFinished(listener: (gone: boolean) => void): void;
  /**
   * The endpoint refused this request before any session took it (`refuse`): counted where the endpoint's acceptor
   * counts refusals (refusals.ts). Absent when nothing counts them.
   */
  readonly refused?: RefusalSink | undefined;
}

/** Where an endpoint's refusals are counted: the status answered, its message, and the JSON-RPC code it carried. */
export type RefusalSink = (status: number, message: string, code: number) => void;

/**
 * Counts body bytes against a limit: shared by both adapters so the rule lives in one place. `push` answers
 * false once the limit is passed; the adapter then stops reading.
 */
export class BodyCollector {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  /** Whether a declared Content-Length already rules the body out. */
  static tooLarge(declared: string | undefined, maxBytes: number): boolean {
    if (declared === undefined) return false;
    const length = Number(declared);
    return Number.isFinite(length) && length > maxBytes;
  }

  push(chunk: Uint8Array): boolean {
    this.size += chunk.byteLength;
    if (this.size > this.maxBytes) {
      this.chunks.length = 0;
      return false;
    }
    this.chunks.push(chunk);
    return true;
  }

  bytes(): Uint8Array {
    if (this.chunks.length === 1) return this.chunks[0] as Uint8Array;
    const whole = new Uint8Array(this.size);
    let at = 0;
    for (const chunk of this.chunks) {
      whole.set(chunk, at);
      at += chunk.byteLength;
    }
    return whole;
  }
}
