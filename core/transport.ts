/**
 * The transport port. Every medium (memory, stdio, Streamable HTTP, NATS) implements it; sessions consume
 * it. Transports move frames and report their health; they never hold lifecycle rules.
 */
import type { Observable } from 'rxjs';
import type { LocalError } from './errors.ts';
import type { FrameEnvelope } from './frame-envelope.ts';
import type { AuthInfo } from './auth.ts';
import type { WirePayload } from './jsonrpc.ts';
import type { Implementation } from './protocol/capabilities.ts';
import type { Limits } from './limits.ts';
import type { ChangeFeedPort } from './server-change.ts';
import type { ServerDescription } from './server-description.ts';
import type { LegacyRevision } from './protocol/versions.ts';
import type { LoggingLevel } from './protocol/logging.ts';

/**
 * The state of a legacy session that may move with it to another process (a takeover): its resource subscriptions
 * and its log level. A server reports it to the transport whenever it changes; a medium that keeps session records
 * stores it and passes it back as `restoredState` when another process continues the session.
 */
export interface PortableSessionState {
  readonly subscriptions?: readonly string[];
  readonly logLevel?: LoggingLevel;
}

/**
 * Names the exchange a frame belongs to: the HTTP request stream or NATS reply inbox that carried an inbound
 * request. Outbound frames that answer or relate to that request carry the same key back, so a transport can
 * route them (a response on its POST stream, progress on its request's stream). Opaque to sessions.
 */
export type ExchangeKey = string | number;

/** Who sent a frame, as established by the transport (for example an authenticated principal). */
export interface FrameOrigin {
  readonly principal?: string;
  /** The verified identity behind `principal`, when the medium has one (its `principal` equals `principal`). */
  readonly auth?: AuthInfo;
}

export type InboundFrame =
  /** A decoded value; the session classifies it (it may still be an invalid JSON-RPC message). */
  | {
      readonly type: 'message';
      readonly payload: unknown;
      /**
       * What the payload is (kind, id, method, target, claimed revision, whether it gets an answer), read by the
       * medium where it decoded the frame (`envelopeOf`), so that nothing after it reads the payload again. A medium
       * that leaves it out has it read by the session.
       */
      readonly envelope?: FrameEnvelope;
      readonly exchange?: ExchangeKey;
      readonly origin?: FrameOrigin;
      /**
       * Envelope metadata the medium carried beside the body (HTTP headers, NATS headers), for the checks only
       * the server can make (tool parameters mirrored into headers). Names are asked for in lower case.
       */
      readonly mirror?: (lowercaseName: string) => string | undefined;
      /**
       * The tool parameters among that metadata (`Mcp-Param-*`), by lower-case name, values as received: what an
       * intermediary passes on beside the body (as {@link OutboundFrame.mirror}) so that the server behind it can
       * make the same check. Only the media that can list their headers give it.
       */
      readonly paramHeaders?: Readonly<Record<string, string>>;
    }
  /** Bytes arrived that could not be decoded (malformed JSON, a frame over the size limit). */
  | { readonly type: 'malformed'; readonly error: LocalError; readonly exchange?: ExchangeKey }
  /** The peer went away from one exchange (closed its HTTP stream, dropped its inbox). */
  | {
      readonly type: 'exchange-closed';
      readonly exchange: ExchangeKey;
      /**
       * The medium takes leaving an exchange as cancelling the request on it, in every era (a NATS client whose
       * reply inbox is gone can take no answer). The session then cancels what runs on that exchange as a
       * cancellation would. Without it only the modern era does (there, closing the response stream is how a
       * client cancels); a legacy-era Streamable HTTP client may leave a stream and still want its answer.
       */
      readonly cancels?: boolean;
      /**
       * Why the medium ended the exchange itself, when it did: a stream cut off because its client stopped reading
       * (a `SlowConsumer` error saying which bound it passed). The session reports it in its diagnostics. A stream
       * that carries no exchange (the Streamable HTTP standalone GET stream) is reported cut off under its own
       * name (`g`), which no request's exchange has.
       */
      readonly reason?: LocalError;
    }
  /**
   * A frame the session sent that the medium cannot deliver, though the connection lives on: for example a
   * server request while answering in plain JSON, or on a stateless HTTP connection. The session fails the
   * request it carried with `error` instead of letting it wait for its timeout.
   */
  | { readonly type: 'undeliverable'; readonly payload: WirePayload; readonly error: LocalError };

export interface OutboundFrame {
  readonly payload: WirePayload;
  /** The exchange of the inbound request this frame answers or relates to. */
  readonly exchange?: ExchangeKey;
  /**
   * Envelope metadata to send beside the body where the medium has a place for it (HTTP or NATS headers):
   * tool arguments a modern client mirrors as `Mcp-Param-*`. Header name to encoded value. Media derive the
   * standard ones (`Mcp-Method`, `Mcp-Name`, `MCP-Protocol-Version`) from the body themselves.
   */
  readonly mirror?: Readonly<Record<string, string>>;
}

/**
 * Health and flow of a medium, as the client transports report it on their own `status$` (for their users:
 * sessions do not read it, so it is not part of the port).
 */
export type TransportStatus =
  | { readonly type: 'open' }
  /** The medium is not taking frames as fast as they are sent; `queued` frames wait. */
  | { readonly type: 'backpressure'; readonly queued: number }
  | { readonly type: 'drained' }
  | { readonly type: 'closed'; readonly reason?: LocalError };

export interface Transport {
  /** A short name of the medium, for diagnostics ("memory", "stdio", "http", "nats"). */
  readonly kind: string;
  /**
   * Who is at the other end, when the medium can say (an endpoint URL, a command line): a client remembers the
   * protocol era each peer spoke, so it does not probe a known legacy server again.
   */
  readonly remote?: string;
  /**
   * The medium's own name for the session, when it has one (a Streamable HTTP session's `Mcp-Session-Id`), so an
   * acceptor can key records of its own by it; a record kept elsewhere is how another process restores it.
   */
  readonly sessionId?: string | undefined;
  /**
   * Inbound frames. Completes when the transport closes. Subscribe once: a transport feeds one session.
   */
  readonly incoming$: Observable<InboundFrame>;
  /**
   * Who the medium authenticated the peer as for the whole connection (a Streamable HTTP session: the principal
   * of the request that opened it), if it did. Frames may still name their own sender in their `origin`.
   */
  readonly principal?: string | undefined;
  /** The verified identity behind `principal` for the whole connection, when the medium has one. */
  readonly auth?: AuthInfo | undefined;
  /**
   * Hands one frame to the medium. Returns `undefined` when the medium took it at once, or a Promise that
   * settles when it did (the caller must wait before sending more: that is backpressure). Rejects with a
   * `ConnectionClosed` {@link LocalError} once the transport is closed.
   */
  send(frame: OutboundFrame): void | Promise<void>;
  /**
   * The medium carries each exchange on a stream of its own (a Streamable HTTP session: one SSE stream per POST,
   * and the GET stream for frames of no exchange), so a Promise from `send` holds back that frame's exchange only:
   * frames of other exchanges may still be sent. Absent: the Promise holds back everything (one stream of frames).
   */
  readonly flowPerExchange?: boolean;
  /** Closes the medium; completes `incoming$`. Idempotent. */
  close(reason?: LocalError): Promise<void>;
  /**
   * Inbound flow control, for media that read one stream of frames (stdio, the memory pair). While paused the
   * medium delivers no frame and stops reading, so the peer's writes wait in turn; frames already decoded are held
   * (at most what one read produced) and delivered on resume, in order. A session pauses while its writer waits for
   * the peer: it never reads more than it can answer. Media that carry each request on an exchange of its own (HTTP,
   * NATS) leave both out. Idempotent; a closed transport ignores them.
   */
  pauseReading?(): void;
  resumeReading?(): void;
  /**
   * Server connections: the session answered the legacy handshake, with the revision it negotiated, or
   * `undefined` when it refused it (invalid `initialize` params; the connection does not operate unless the peer
   * tries again). A medium that shapes its traffic by revision (Streamable HTTP: batches, primed and polled
   * streams) or keeps records of its sessions learns it here: transports never read lifecycle messages. A
   * connection made with `preinitialized` hears its revision when it is accepted.
   */
  negotiated?(revision: LegacyRevision | undefined): void;
  /**
   * Server connections: the session's portable state now, after a `resources/subscribe`, `resources/unsubscribe`
   * or `logging/setLevel` succeeded, and once after `restoredState` was applied (what was actually restored).
   */
  portableStateChanged?(state: PortableSessionState): void;
}

/**
 * What a multi-session transport (a Streamable HTTP endpoint, a NATS binding) needs from a server: somewhere
 * to hand each new connection. `McpServer` from `createServer` fits it as is; transports depend on this port,
 * never on the server itself.
 */
export interface SessionAcceptorPort {
  /** Which protocol eras the server serves (absent: legacy only). */
  readonly eras?: 'both' | 'legacy' | 'modern';
  /** The server's changes, for media that carry them between processes (absent: nothing to carry). */
  readonly changes?: ChangeFeedPort;
  /**
   * What the server says of itself now, for media that announce it (NATS service discovery); asked whenever they
   * are asked, so it should be cheap (absent: the medium announces nothing of the server).
   */
  describe?(): ServerDescription;
  /**
   * Why a new session would be refused now (a session host at its maximum, or shutting down), if it would be.
   * Media ask before opening a session, so they refuse it cleanly (HTTP 503, an error answer) instead of
   * doing work for it; `accept` throws the same error if asked anyway.
   */
  refusal?(): LocalError | undefined;
  /**
   * A medium refused a request before any session took it: the Host or Origin it came from, its size or its body,
   * a session id it did not know, the acceptor being full (asked with `refusal` first)... Told so that the acceptor
   * counts every refusal wherever it happens (a session host's `metrics().refused` and its `refused` events);
   * `status` is the medium's own answer (HTTP: the status code). What `accept` refused it counted already.
   */
  noteRefusal?(reason: LocalError, status?: number): void;
  /**
   * The scopes a request to `method` with `params` needs when `auth` (the caller) lacks some of them, else
   * `undefined`; only for items whose `requires` is a scope list (predicates stay with the handler). Media whose
   * answer status is fixed before the handler runs (Streamable HTTP opening an SSE stream) ask first, so they can
   * refuse with 403 and a step-up challenge; the handler refuses such a call with -32043 anyway. Asked only for
   * a request whose method's declaration names an access rule for its target and that names its item (the frame
   * envelope's `target`): other requests need no scope a medium could check first.
   */
  missingScopes?(method: string, params: unknown, auth: AuthInfo | undefined): readonly string[] | undefined;
  accept(
    transport: Transport,
    options?: {
      /**
       * For connections that carry no handshake (stateless HTTP) or had it elsewhere (a restored session): start
       * operating at once with these.
       */
      readonly preinitialized?: {
        readonly revision: LegacyRevision;
        readonly peerCapabilities: { readonly [key: string]: unknown };
        readonly peerInfo?: Implementation;
      };
      /** The medium knows the connection speaks the modern era (2026-07-28). */
      readonly knownEra?: 'modern';
      /**
       * The connection continues a session that began elsewhere (another process), under this id (also the
       * transport's `sessionId`): the handshake is not repeated (see `preinitialized`), and an acceptor that keeps
       * records per session looks its record up instead of starting one.
       */
      readonly restoredSessionId?: string;
      /** The portable state the session had in its previous process, restored before the first frame is served. */
      readonly restoredState?: PortableSessionState;
      /** Overrides of the session limits for this connection (a NATS lane carries one client's whole traffic). */
      readonly limits?: Partial<Limits>;
    },
  ): { readonly state: string; close(options?: GracefulCloseOptions): Promise<void> };
}

/**
 * How a server closes a connection gracefully: new requests are refused at once, requests in flight may run
 * for up to `drainMs` and what still runs then is answered with an error naming the deadline; queued frames
 * get up to `flushMs` to reach the medium before it closes.
 */
export interface GracefulCloseOptions {
  readonly drainMs?: number;
  readonly flushMs?: number;
  readonly reason?: LocalError;
}
