/**
 * The public face of a session (either role) and the options it is made with; the engine is session-core.ts.
 */
import type { AuthInfo } from '../core/auth.ts';
import type { Observable } from 'rxjs';
import type { PromiseRequestOptions, RequestEvent, RequestOptions, SessionView } from '../actors/handler-types.ts';
import type { KeepaliveOptions } from '../actors/keepalive.ts';
import type { ModernServing } from '../actors/modern/modern-serving.ts';
import type { OutboundWriter } from '../actors/outbound-writer.ts';
import type { SessionDiagnostic } from '../actors/session-context.ts';
import type { BackpressureOptions, FlowStatus } from '../core/backpressure.ts';
import type { Clock } from '../core/clock.ts';
import type { LocalError } from '../core/errors.ts';
import type { JsonObject, RequestId } from '../core/jsonrpc.ts';
import type { Limits } from '../core/limits.ts';
import type { AnyCapabilities, Implementation } from '../core/protocol/capabilities.ts';
import type { ParamsOf, RequestDeclaration, ResultOf } from '../core/protocol/declarations/declaration.ts';
import type { LegacyRevision } from '../core/protocol/versions.ts';
import type { ExchangeKey, PortableSessionState } from '../core/transport.ts';
import type { MachineInspector } from '../machines/executor.ts';
import type { LifecycleEvent, LifecycleState } from '../machines/session-lifecycle.ts';
import type { SessionMessage } from './message-tap.ts';

export interface SessionRuntimeOptions {
  /** Overrides of the default limits. */
  readonly limits?: Partial<Limits>;
  readonly clock?: Clock;
  /** Ping the peer periodically once the session operates; close it when pings go unanswered. */
  readonly keepalive?: KeepaliveOptions;
  /** Called once when the session has closed (one shared function, so it costs no closure per session). */
  readonly onClosed?: (session: McpSession, reason: LocalError | undefined) => void;
  /** What happens when the peer stops reading (default: the session is dropped once its queue overflows). */
  readonly backpressure?: BackpressureOptions;
  /** Called when the peer becomes a slow consumer or keeps up again (one shared function, like `onClosed`). */
  readonly onFlow?: (session: McpSession, status: FlowStatus) => void;
  /**
   * Sees every step of this session's machines (its lifecycle, the requests it sends), shaped like XState's
   * `inspect`: `@xstate.event`, `@xstate.snapshot` and `@xstate.action` events with the machine's id, the session's
   * id, the event and the state. The session's own `state$` is fed through the same hook. One shared function, like
   * `onClosed`; a session without it pays nothing per step.
   */
  readonly inspect?: MachineInspector;
  /**
   * Server only: start already operating, as if this handshake had happened. For connections that carry no
   * handshake of their own (a stateless HTTP request): requests to the client are then refused clearly,
   * because it declared no capabilities, instead of being sent where no answer can come back.
   */
  readonly preinitialized?: { readonly revision: LegacyRevision; readonly peerCapabilities: AnyCapabilities; readonly peerInfo?: Implementation };
  /**
   * Server only: the medium already knows the connection is a modern (2026-07-28) one (a POST that said so in
   * its headers), so even an `initialize` on it is judged in that era.
   */
  readonly knownEra?: 'modern';
  /** Server only: a restored session's portable state (see `PortableSessionState`), applied at `accept`. */
  readonly restoredState?: PortableSessionState;
}

export interface CloseOptions {
  /**
   * Let running incoming requests finish for up to this long (default 0). New requests are refused meanwhile;
   * what still runs afterwards is aborted and answered with an error saying the deadline passed.
   */
  readonly drainMs?: number;
  /** Then wait up to this long for queued outbound frames to reach the transport before closing it (default 1 s). */
  readonly flushMs?: number;
  readonly reason?: LocalError;
}

/** The public face of a session, for either role. */
export interface McpSession extends SessionView {
  readonly state: LifecycleState;
  /** The lifecycle state now and on every change; completes when the session closes. */
  readonly state$: Observable<LifecycleState>;
  /** Things handled without failing anything: dropped late responses, malformed frames, handler errors. */
  readonly diagnostics$: Observable<SessionDiagnostic>;
  /** `slow` when the peer stops keeping up with what is sent, `flowing` once it caught up; completes on close. */
  readonly flow$: Observable<FlowStatus>;
  /** Whether the peer counts as a slow consumer now. */
  readonly isSlow: boolean;
  /** Frames waiting for the transport now. */
  readonly queuedFrames: number;
  /** Requests in flight now, both ways (handlers running here, requests awaiting the peer's answer). */
  readonly inFlight: number;
  /** When the last frame arrived from the peer (or the session started), on the session's clock. */
  readonly lastActivityAt: number;
  /**
   * Settles when a producer may send more: at once, unless the backpressure policy is `pause` and the peer is
   * slow (then once it caught up). Rejects if the session closes first.
   */
  whenWritable(): Promise<void>;
  /**
   * Every frame read from the peer (`in`) and handed to the transport (`out`), with the time on the session's
   * clock, from the moment of subscribing; completes when the session closes. Opt-in: a session nobody taps
   * holds nothing for it, and unsubscribing releases what the tap held.
   */
  readonly messages$: Observable<SessionMessage<McpSession>>;
  /**
   * Who the transport authenticated the peer as for the whole connection (the Streamable HTTP `authenticate`
   * option, for the request that opened the session), if it did.
   */
  readonly principal: string | undefined;
  /** The verified identity behind `principal` for the whole connection, when the medium has one. */
  readonly auth: AuthInfo | undefined;
  /** Settles when the session has closed, with the reason it closed for, if any. */
  readonly closed: Promise<LocalError | undefined>;
  /** The server's instructions (client sessions). */
  readonly instructions: string | undefined;
  /** The capabilities this side declared. */
  readonly ownCapabilities: AnyCapabilities;
  /** `modern` once the connection speaks 2026-07-28 (per-request envelopes, no handshake). */
  readonly era: 'legacy' | 'modern';
  /** The clock this session's timers run on. */
  readonly clock: Clock;
  /** Sends a request: progress values first, then the result. Unsubscribing cancels it. */
  request$<R extends object = JsonObject>(method: string, params?: JsonObject, options?: RequestOptions): Observable<RequestEvent<R>>;
  /** The typed form: the method is the declaration's, and so are the params and result types. */
  request$<D extends RequestDeclaration>(declaration: D, params: ParamsOf<D>, options?: RequestOptions): Observable<RequestEvent<ResultOf<D>>>;
  /** Sends a request and resolves with its result. */
  request<R extends object = JsonObject>(method: string, params?: JsonObject, options?: PromiseRequestOptions): Promise<R>;
  /** The typed form: `request(declaration, params)` resolves with a `ResultOf<typeof declaration>`. */
  request<D extends RequestDeclaration>(declaration: D, params: ParamsOf<D>, options?: PromiseRequestOptions): Promise<ResultOf<D>>;
  notify(method: string, params?: JsonObject): void;
  ping(options?: PromiseRequestOptions): Promise<void>;
  close(options?: CloseOptions): Promise<void>;
}

/** What a handshake strategy may do with the session it serves. */
export interface HandshakeSession {
  readonly writer: OutboundWriter;
  readonly ownCapabilities: AnyCapabilities;
  revision: LegacyRevision | undefined;
  peerCapabilities: AnyCapabilities | undefined;
  peerInfo: Implementation | undefined;
  step(event: LifecycleEvent): void;
  /** The handshake was refused (an invalid `initialize`): the transport hears it, as it hears a revision. */
  handshakeRefused(): void;
}

/** Role-specific handling of the handshake messages. */
export interface HandshakeStrategy {
  /** Set when the server also serves the modern era (2026-07-28) on connections that start without a handshake. */
  readonly modern?: ModernServing | undefined;
  handleInitialize(session: HandshakeSession, id: RequestId, params: JsonObject | undefined, exchange: ExchangeKey | undefined): void;
}
