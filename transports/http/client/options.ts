/**
 * Options, events and resolved settings of the Streamable HTTP client transport.
 */
import { type Clock, systemClock } from '../../../core/clock.ts';
import type { LocalError } from '../../../core/errors.ts';
import { defaultLimits } from '../../../core/limits.ts';
import type { TransportStatus } from '../../../core/transport.ts';
import type { HttpClientAuth } from './auth-port.ts';

/**
 * `auto` (default): Streamable HTTP, falling back to the 2024-11-05 HTTP+SSE transport when the server refuses
 * the first POST (`initialize`) with 400, 404 or 405. `streamable`: never fall back. `legacy-sse`: HTTP+SSE only.
 */
export type HttpClientMode = 'auto' | 'streamable' | 'legacy-sse';

export interface ReconnectOptions {
  /** Delay before reconnecting when the server sent no `retry:` (default 1000 ms). */
  readonly defaultRetryMs?: number;
  /** Consecutive reconnections without any event before the stream is given up (default 5). */
  readonly maxAttempts?: number;
  /** Each fruitless reconnection multiplies the delay by this (default 2). The first waits exactly `retry`. */
  readonly growFactor?: number;
  /** Ceiling on the delay (default 30 s). */
  readonly maxDelayMs?: number;
}

/** The options every engine takes (the node:http and fetch factories add their own). */
export interface HttpClientOptions {
  readonly mode?: HttpClientMode;
  /**
   * Headers sent with every request (for example `Authorization`). A function is called per request, so a
   * token can be refreshed. The transport's own headers (content type, session id, protocol version) win.
   */
  readonly headers?: Readonly<Record<string, string>> | (() => Readonly<Record<string, string>>);
  /**
   * Who authorizes the requests: headers per request, and the answer to a 401 (or a 403 with a challenge), after
   * which the request is sent again. `rxmcp/auth/client`'s `createOAuthClient` is one; a program may bring its own.
   */
  readonly auth?: HttpClientAuth;
  /** How many times in a row one request may be refused and sent again after `auth` cured it (default 3). */
  readonly maxAuthRetries?: number;
  /** Open the optional standalone GET stream once the session is initialized (default true). */
  readonly openGetStream?: boolean;
  /**
   * Re-initialize transparently when the server answers 404 for our session id (default true). The server's
   * state of the old session (resource subscriptions, log level, running tasks) is gone with it.
   */
  readonly renewSession?: boolean;
  /**
   * Sockets of the owned node:http request agent (default 64). Answers and notifications use a separate small
   * pool. Not used with fetch, which pools connections itself.
   */
  readonly maxSockets?: number;
  /** POSTs awaiting their response headers before `send` reports backpressure (default 256). */
  readonly maxPendingPosts?: number;
  /** Largest JSON body or SSE event accepted, in bytes (default: the runtime's message limit). */
  readonly maxMessageBytes?: number;
  readonly reconnect?: ReconnectOptions;
  /** How long `close()` waits for the DELETE that ends the session (default 2000 ms). */
  readonly closeTimeoutMs?: number;
  /** How long the legacy fallback waits for the `endpoint` event (default 10 s). */
  readonly legacyEndpointTimeoutMs?: number;
  /** Timers (reconnection delays, close and fallback timeouts) run on this clock. */
  readonly clock?: Clock;
}

/** What the transport did on its own, for logs and tests. Not part of the core status. */
export type HttpClientEvent =
  /** The server forgot our session (404); a new one was negotiated by replaying `initialize`. */
  | { readonly type: 'session-renewed'; readonly previousSessionId: string; readonly sessionId: string | undefined }
  | { readonly type: 'session-renewal-failed'; readonly previousSessionId: string; readonly error: LocalError }
  | { readonly type: 'get-stream-opened' }
  /** The server does not offer the standalone GET stream (400, 404, 405): not an error, not retried. */
  | { readonly type: 'get-stream-refused'; readonly status: number }
  | { readonly type: 'get-stream-lost'; readonly error: LocalError }
  /** An SSE stream ended early; a GET with `Last-Event-ID` follows after `delayMs`. */
  | { readonly type: 'reconnecting'; readonly lastEventId: string | undefined; readonly delayMs: number; readonly attempt: number }
  /** The server speaks the 2024-11-05 HTTP+SSE transport; messages go to `endpoint`. */
  | { readonly type: 'legacy-fallback'; readonly endpoint: string }
  /** Something the server sent that is not for the session (an id-less result answering a notification). */
  | { readonly type: 'ignored'; readonly reason: string };

/** The core status, plus the transport's own events (delivered on `events$`). */
export type HttpClientStatus = TransportStatus | HttpClientEvent;

export interface ResolvedOptions {
  readonly mode: HttpClientMode;
  readonly headers: () => Readonly<Record<string, string>>;
  readonly openGetStream: boolean;
  readonly renewSession: boolean;
  readonly maxSockets: number;
  readonly maxPendingPosts: number;
  readonly maxMessageBytes: number;
  readonly defaultRetryMs: number;
  readonly maxAttempts: number;
  readonly growFactor: number;
  readonly maxDelayMs: number;
  readonly closeTimeoutMs: number;
  readonly legacyEndpointTimeoutMs: number;
  readonly clock: Clock;
  readonly auth: HttpClientAuth | undefined;
  readonly maxAuthRetries: number;
}

const noHeaders = Object.freeze({});

export function resolveOptions(options: HttpClientOptions): ResolvedOptions {
  const headers = options.headers;
  return Object.freeze({
    mode: options.mode ?? 'auto',
    headers: typeof headers === 'function' ? headers : () => headers ?? noHeaders,
    openGetStream: options.openGetStream ?? true,
    renewSession: options.renewSession ?? true,
    maxSockets: positive(options.maxSockets, 64, 'maxSockets'),
    maxPendingPosts: positive(options.maxPendingPosts, 256, 'maxPendingPosts'),
    maxMessageBytes: positive(options.maxMessageBytes, defaultLimits.maxMessageBytes, 'maxMessageBytes'),
    defaultRetryMs: nonNegative(options.reconnect?.defaultRetryMs, 1000, 'reconnect.defaultRetryMs'),
    maxAttempts: nonNegative(options.reconnect?.maxAttempts, 5, 'reconnect.maxAttempts'),
    growFactor: positive(options.reconnect?.growFactor, 2, 'reconnect.growFactor'),
    maxDelayMs: positive(options.reconnect?.maxDelayMs, 30_000, 'reconnect.maxDelayMs'),
    closeTimeoutMs: nonNegative(options.closeTimeoutMs, 2000, 'closeTimeoutMs'),
    legacyEndpointTimeoutMs: positive(options.legacyEndpointTimeoutMs, 10_000, 'legacyEndpointTimeoutMs'),
    clock: options.clock ?? systemClock,
    auth: options.auth,
    maxAuthRetries: nonNegative(options.maxAuthRetries, 3, 'maxAuthRetries'),
  });
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(value > 0)) throw new RangeError(`${name} must be positive, got ${value}`);
  return value;
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(value >= 0)) throw new RangeError(`${name} must not be negative, got ${value}`);
  return value;
}
