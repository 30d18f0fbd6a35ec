/**
 * The options of `createStreamableHttpServer`, and their defaults. Everything that bounds or protects is on by
 * default: loopback-only Host and Origin, a body limit, a session limit, idle expiry, bounded event storage.
 */
import { type Clock, systemClock } from '../../../core/clock.ts';
import { defaultLimits } from '../../../core/limits.ts';
import { LEGACY_REVISIONS, type LegacyRevision } from '../../../core/protocol/versions.ts';
import type { Implementation } from '../../../core/protocol/capabilities.ts';
import type { AuthInfo } from '../../../core/auth.ts';
import type { FrameOrigin, SessionAcceptorPort } from '../../../core/transport.ts';
import { ProtectedResource, type ProtectedResourceOptions } from './protected-resource.ts';
import { type HostPolicy, LOOPBACK_HOSTS, LOOPBACK_ORIGINS, createHostCheck, createOriginCheck } from '../shared/host-origin.ts';
import { type EventStore, InMemoryEventStore } from './event-store.ts';
import type { HttpRequestInfo } from './http-exchange.ts';
import type { SseSettings, TransportSettings } from './settings.ts';
import { type CorsOptions, type CorsPolicy, resolveCors } from './cors.ts';
import { type HealthOptions, type HealthSettings, resolveHealth } from './health.ts';

/** What `authenticate` may answer: a principal, a verified identity, or nobody (anonymous). */
export type Authenticated = string | AuthInfo | undefined;

export interface SseOptions {
  /** The `retry:` (ms) sent with priming events and on resumed streams; 0 sends none (default 1000). */
  readonly retryMs?: number;
  /** Prime the streams of 2025-11-25 sessions with an event id and empty data (default true; needs a store). */
  readonly prime?: boolean;
  /**
   * The 2025-11-25 polling pattern: the server closes a request's stream connection this long after opening it;
   * the request keeps running and the client resumes with GET + Last-Event-ID (default: never).
   */
  readonly closeRequestStreamsAfterMs?: number;
  /** A comment line every this many ms on idle streams, for proxies (default 15 000; 0 disables). */
  readonly keepAliveMs?: number;
  /** A client that reads nothing for this long while its buffer is full is disconnected (default 30 000). */
  readonly drainTimeoutMs?: number;
  /**
   * A 2026-07-28 answer stream whose client does not read is disconnected (its request cancelled) once this much
   * (characters, about bytes) waits for it beyond the connection's buffer (default 4 MiB). A legacy-era stream is
   * bounded by the session's outbound queue instead (`maxOutboundQueue`), which holds back that stream alone.
   */
  readonly maxBufferedBytes?: number;
}

export interface LegacySseOptions {
  /** The GET endpoint that opens a 2024-11-05 SSE session (default `/sse`). */
  readonly ssePath?: string;
  /** The POST endpoint for its messages (default `/messages`). */
  readonly messagesPath?: string;
}

/**
 * What a process needs to serve a session that began in another one (see `restoreSession`): the outcome of its
 * handshake. The session goes on operating with these, under the id the client sent.
 */
export interface RestoredSession {
  /** The revision the session negotiated (one of `supportedVersions`, or the session is not restored). */
  readonly revision: LegacyRevision;
  /** The capabilities the client declared in its initialize request. */
  readonly peerCapabilities: { readonly [key: string]: unknown };
  /** The `clientInfo` of its initialize request. */
  readonly peerInfo?: Implementation;
}

export interface StreamableHttpServerOptions {
  /** Where new sessions go: `createServer()` from rxmcp fits. */
  readonly server: SessionAcceptorPort;
  /** The MCP endpoint path (default `/mcp`). */
  readonly path?: string;
  /** How requests are answered: an SSE stream (default) or one JSON body. See docs/http.md. */
  readonly responseMode?: 'sse' | 'json';
  /** Serve the standalone GET stream (default true; otherwise GET without Last-Event-ID gets 405). */
  readonly standaloneGet?: boolean;
  /** No sessions: every POST is served by a fresh preinitialized session, closed after answering. */
  readonly stateless?: boolean;
  /** Host header values answered (default: localhost, 127.0.0.1, [::1], any port). */
  readonly allowedHosts?: HostPolicy;
  /** Origin header values answered when present (default: http(s) pages on loopback, any port); `cors.origins` are added. */
  readonly allowedOrigins?: HostPolicy;
  /** CORS for browser pages on other origins (default: off, and OPTIONS gets 405). See docs/http.md. */
  readonly cors?: CorsOptions;
  /**
   * Liveness (`/healthz`) and readiness (`/readyz`) probes beside the endpoint (default: on, on those paths);
   * false: none. See docs/http.md.
   */
  readonly health?: HealthOptions | false;
  /** The largest POST body, in bytes (default 4 MiB); larger ones get 413. */
  readonly maxBodyBytes?: number;
  /** Sessions open at once (default 1000); more initialize requests get 503. */
  readonly maxSessions?: number;
  /**
   * Modern-era (2026-07-28) `subscriptions/listen` streams open at once (default 1000): each holds a connection
   * and its server-side state for as long as the client listens (about 15 KiB of server heap each, measured by bench/http-listen-streams.ts); more get
   * 503 with `Retry-After` and a JSON-RPC error naming the limit.
   */
  readonly maxListenStreams?: number;
  /** A session without requests or open streams for this long ends (default 30 min; 0 or Infinity: never). */
  readonly idleTimeoutMs?: number;
  /**
   * Identifies the caller: a principal, a verified identity ({@link AuthInfo}, which handlers then see as
   * `ctx.auth`), or undefined for anonymous. Sessions belong to the principal that opened them; each request of
   * a session carries the identity of its own credentials (a refreshed token) to its handler. Throwing an
   * `AuthRefusal` answers with its status (401 or 403) and `WWW-Authenticate` challenge; throwing anything else
   * answers 401 (with a challenge naming `protectedResource`, when given). `bearerAuth` from rxmcp/auth makes one.
   */
  readonly authenticate?: (request: HttpRequestInfo) => Authenticated | Promise<Authenticated>;
  /**
   * This endpoint as an OAuth protected resource: its RFC 9728 metadata, served at
   * `/.well-known/oauth-protected-resource` (and suffixed with the resource's and the endpoint's path), named
   * in the challenges of 401 and 403 answers. `bearerAuth` from rxmcp/auth makes one.
   */
  readonly protectedResource?: ProtectedResourceOptions;
  /**
   * Several processes serve the same sessions (replicas behind a load balancer): a request naming a session this
   * process does not hold asks here, and a record brings the session back under the same id, as if it had
   * always been here; undefined answers 404 as for any unknown session. Concurrent requests for one id share
   * one call. `origin` is the caller's (its principal, with `authenticate`): return undefined when the session
   * is not theirs, since the restored session is bound to that principal. The id is the client's header, only
   * checked to be 1 to 256 visible ASCII characters.
   *
   * With it, a process letting go of a session (idle expiry, `close()`) does not drop its events from the
   * store, which other processes may still resume from; only DELETE (the session ends) does.
   */
  readonly restoreSession?: (sessionId: string, origin: FrameOrigin | undefined) => Promise<RestoredSession | undefined> | RestoredSession | undefined;
  /** Where events wait for reconnecting clients (default: a bounded in-memory store); false: no resumability. */
  readonly eventStore?: EventStore | false;
  readonly sse?: SseOptions;
  /** Revisions accepted in the MCP-Protocol-Version header (default: every legacy revision). */
  readonly supportedVersions?: readonly LegacyRevision[];
  /** Also serve the 2024-11-05 HTTP+SSE transport on two more paths. */
  readonly legacySse?: LegacySseOptions | boolean;
  readonly clock?: Clock;
}

export interface EndpointOptions {
  readonly server: SessionAcceptorPort;
  readonly path: string;
  readonly responseMode: 'sse' | 'json';
  readonly standaloneGet: boolean;
  readonly stateless: boolean;
  readonly hostAllowed: (host: string | undefined) => boolean;
  readonly originAllowed: (origin: string) => boolean;
  /** Undefined: no CORS. */
  readonly cors: CorsPolicy | undefined;
  /** Undefined: no probes. */
  readonly health: HealthSettings | undefined;
  readonly maxBodyBytes: number;
  readonly maxSessions: number;
  readonly maxListenStreams: number;
  readonly idleTimeoutMs: number;
  readonly authenticate: StreamableHttpServerOptions['authenticate'];
  readonly protectedResource: ProtectedResource | undefined;
  readonly restoreSession: StreamableHttpServerOptions['restoreSession'];
  readonly supportedVersions: readonly LegacyRevision[];
  readonly legacySse: { readonly ssePath: string; readonly messagesPath: string } | undefined;
  readonly clock: Clock;
  /** For stateful sessions; stateless ones get the same without a store. */
  readonly transport: TransportSettings;
}

export function resolveOptions(options: StreamableHttpServerOptions): EndpointOptions {
  const clock = options.clock ?? systemClock;
  const stateless = options.stateless ?? false;
  const store = options.eventStore === false || stateless ? undefined : (options.eventStore ?? new InMemoryEventStore());
  const legacy = options.legacySse === true ? {} : options.legacySse === false ? undefined : options.legacySse;
  const sse = options.sse ?? {};
  const path = options.path ?? '/mcp';
  const legacySse = legacy === undefined ? undefined : { ssePath: legacy.ssePath ?? '/sse', messagesPath: legacy.messagesPath ?? '/messages' };
  const cors = resolveCors(options.cors);
  const originAllowed = createOriginCheck(options.allowedOrigins ?? LOOPBACK_ORIGINS);
  const protectedResource = options.protectedResource === undefined ? undefined : new ProtectedResource(options.protectedResource, path);
  const sseSettings: SseSettings = Object.freeze({
    retryMs: sse.retryMs ?? 1000,
    prime: sse.prime ?? true,
    closeRequestStreamsAfterMs: sse.closeRequestStreamsAfterMs,
    keepAliveMs: sse.keepAliveMs ?? 15_000,
    drainTimeoutMs: sse.drainTimeoutMs ?? 30_000,
  });
  const sseConnection = Object.freeze({ clock, keepAliveMs: sseSettings.keepAliveMs, drainTimeoutMs: sseSettings.drainTimeoutMs });
  return {
    server: options.server,
    path,
    responseMode: options.responseMode ?? 'sse',
    standaloneGet: options.standaloneGet ?? true,
    stateless,
    hostAllowed: createHostCheck(options.allowedHosts ?? LOOPBACK_HOSTS),
    originAllowed: cors === undefined ? originAllowed : (origin) => originAllowed(origin) || cors.allows(origin),
    cors,
    health: resolveHealth(options.health, legacySse === undefined ? [path] : [path, legacySse.ssePath, legacySse.messagesPath]),
    maxBodyBytes: options.maxBodyBytes ?? defaultLimits.maxMessageBytes,
    maxSessions: options.maxSessions ?? 1000,
    maxListenStreams: options.maxListenStreams ?? 1000,
    idleTimeoutMs: options.idleTimeoutMs ?? 30 * 60_000,
    authenticate: options.authenticate,
    protectedResource,
    restoreSession: stateless ? undefined : options.restoreSession,
    supportedVersions: options.supportedVersions ?? LEGACY_REVISIONS,
    legacySse,
    clock,
    transport: {
      clock,
      challenge: protectedResource,
      store,
      stateless,
      sharedSessions: !stateless && options.restoreSession !== undefined,
      sse: sseSettings,
      sseConnection,
      boundedSseConnection: Object.freeze({ ...sseConnection, maxBufferedBytes: maxBufferedBytesOf(sse.maxBufferedBytes) }),
    },
  };
}

/** `sse.maxBufferedBytes`, checked: a bound of 0 or less would cut every stream at its first full buffer. */
function maxBufferedBytesOf(value: number | undefined): number {
  if (value === undefined) return 4 * 1024 * 1024;
  if (!(value > 0)) throw new RangeError(`sse.maxBufferedBytes must be positive; got ${value}`);
  return value;
}
