/**
 * A session: one peer, one transport, one lifecycle. It owns the state the actors share (the maps of
 * running and pending requests, the negotiated revision and capabilities) and steps its lifecycle machine;
 * the work itself happens in the actors. Role-specific handshakes live in server-session.ts and
 * client-session.ts.
 */
import { BehaviorSubject, type Observable, Subject, type Subscription } from 'rxjs';
import type { HandlerTable, PromiseRequestOptions, RequestEvent, RequestOptions, SessionView } from '../actors/handler-types.ts';
import { routeFrame } from '../actors/inbound-router.ts';
import type { ModernServing } from '../actors/modern/modern-serving.ts';
import { type KeepaliveOptions, startKeepalive } from '../actors/keepalive.ts';
import { OutboundWriter, type OutboundWriterEvents } from '../actors/outbound-writer.ts';
import { type OutgoingRequestSpec, outgoingRequest, outgoingRequest$ } from '../actors/outgoing-request.ts';
import type { PendingRequest, RunningRequest, SessionContext, SessionDiagnostic } from '../actors/session-context.ts';
import { type BackpressureOptions, type FlowStatus, resolveBackpressure } from '../core/backpressure.ts';
import { type Clock, type TimerHandle, systemClock } from '../core/clock.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { LocalError } from '../core/errors.ts';
import { type JsonObject, type RequestId, notification } from '../core/jsonrpc.ts';
import { type Limits, resolveLimits } from '../core/limits.ts';
import type { AnyCapabilities, Implementation } from '../core/protocol/capabilities.ts';
import { methodAvailable, methodRule, type Role } from '../core/protocol/methods.ts';
import type { LegacyRevision } from '../core/protocol/versions.ts';
import type { ExchangeKey, InboundFrame, Transport } from '../core/transport.ts';
import {
  type LifecycleEvent,
  type LifecycleMachine,
  type LifecycleSnapshot,
  type LifecycleState,
  type LifecycleTag,
  initialLifecycle,
  lifecycleState,
  stepLifecycle,
} from '../machines/session-lifecycle.ts';

const noHandlers: HandlerTable = Object.freeze({ requests: new Map(), notifications: new Map() });

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

const DEFAULT_FLUSH_MS = 1_000;

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
  /** Sends a request and resolves with its result. */
  request<R extends object = JsonObject>(method: string, params?: JsonObject, options?: PromiseRequestOptions): Promise<R>;
  notify(method: string, params?: JsonObject): void;
  ping(options?: PromiseRequestOptions): Promise<void>;
  close(options?: CloseOptions): Promise<void>;
}

/** Role-specific handling of the handshake messages. */
export interface HandshakeStrategy {
  /** Set when the server also serves the modern era (2026-07-28) on connections that start without a handshake. */
  readonly modern?: ModernServing | undefined;
  handleInitialize(session: SessionCore, id: RequestId, params: JsonObject | undefined, exchange: ExchangeKey | undefined): void;
}

export class SessionCore implements SessionContext, McpSession, OutboundWriterEvents {
  readonly limits: Limits;
  readonly clock: Clock;
  readonly writer: OutboundWriter;
  readonly outgoing = new Map<RequestId, PendingRequest>();
  readonly incoming = new Map<RequestId, RunningRequest>();
  revision: LegacyRevision | undefined;
  peerCapabilities: AnyCapabilities | undefined;
  peerInfo: Implementation | undefined;
  instructions: string | undefined;
  envelope: JsonObject | undefined;
  lastActivityAt: number;
  private snapshot: LifecycleSnapshot;
  private lastId = 0;
  private deferred: Array<() => void> | undefined;
  private subscription: Subscription | undefined;
  private keepalive: TimerHandle | undefined;
  private stateSubject: BehaviorSubject<LifecycleState> | undefined;
  private diagnosticsSubject: Subject<SessionDiagnostic> | undefined;
  private flowSubject: Subject<FlowStatus> | undefined;
  private closedPromise: Promise<LocalError | undefined> | undefined;
  private resolveClosed: ((reason: LocalError | undefined) => void) | undefined;
  private closeReason: LocalError | undefined;
  private closing: Promise<void> | undefined;
  private transportGone = false;

  constructor(
    readonly role: Role,
    private readonly transport: Transport,
    private readonly machine: LifecycleMachine,
    readonly ownCapabilities: AnyCapabilities,
    readonly handlers: HandlerTable = noHandlers,
    private readonly handshake: HandshakeStrategy | undefined,
    private readonly runtime: SessionRuntimeOptions = {},
  ) {
    this.limits = resolveLimits(runtime.limits);
    this.clock = runtime.clock ?? systemClock;
    this.snapshot = initialLifecycle(machine);
    this.lastActivityAt = this.clock.now();
    this.writer = new OutboundWriter(transport, this.limits.maxOutboundQueue, this.limits.maxIncomingInFlight, resolveBackpressure(runtime.backpressure), this.clock, this);
    const preinitialized = runtime.preinitialized;
    if (preinitialized !== undefined && role === 'server') {
      this.revision = preinitialized.revision;
      this.peerCapabilities = preinitialized.peerCapabilities;
      this.peerInfo = preinitialized.peerInfo;
      this.step({ type: 'INITIALIZE' });
      this.step({ type: 'INITIALIZED' });
    } else if (runtime.knownEra === 'modern' && role === 'server' && handshake?.modern !== undefined) {
      this.step({ type: 'MODERN' });
    }
  }

  /** Starts reading the transport. */
  start(): void {
    if (this.subscription !== undefined) return;
    // The session is its own observer: prototype methods cost no closures per session.
    this.subscription = this.transport.incoming$.subscribe(this);
  }

  /** Observer of the transport's frames. */
  next(frame: InboundFrame): void {
    this.lastActivityAt = this.clock.now();
    routeFrame(this, frame);
  }

  /** Observer of the transport's frames: the transport failed. */
  error(error: unknown): void {
    // A transport that says why it ended (a child process exit code, a socket error) is passed on as is.
    this.onTransportGone(error instanceof LocalError ? error : new LocalError('TransportFailed', 'The transport failed', { cause: error }));
  }

  /** Observer of the transport's frames: the transport closed. */
  complete(): void {
    this.onTransportGone(undefined);
  }

  // --- SessionView / McpSession -------------------------------------------------------------------------

  get view(): SessionView {
    return this;
  }

  get state(): LifecycleState {
    return lifecycleState(this.snapshot);
  }

  get state$(): Observable<LifecycleState> {
    this.stateSubject ??= new BehaviorSubject<LifecycleState>(this.state);
    if (this.state === 'closed') this.stateSubject.complete();
    return this.stateSubject.asObservable();
  }

  get diagnostics$(): Observable<SessionDiagnostic> {
    this.diagnosticsSubject ??= new Subject<SessionDiagnostic>();
    return this.diagnosticsSubject.asObservable();
  }

  get flow$(): Observable<FlowStatus> {
    this.flowSubject ??= new Subject<FlowStatus>();
    if (this.state === 'closed') this.flowSubject.complete();
    return this.flowSubject.asObservable();
  }

  get isSlow(): boolean {
    return this.writer.isSlow;
  }

  get queuedFrames(): number {
    return this.writer.queued;
  }

  get inFlight(): number {
    return this.incoming.size + this.outgoing.size;
  }

  whenWritable(): Promise<void> {
    return this.writer.whenWritable();
  }

  get closed(): Promise<LocalError | undefined> {
    if (this.closedPromise === undefined) {
      this.closedPromise = this.state === 'closed'
        ? Promise.resolve(this.closeReason)
        : new Promise((resolve) => (this.resolveClosed = resolve));
    }
    return this.closedPromise;
  }

  request$<R extends object = JsonObject>(method: string, params?: JsonObject, options: RequestOptions = {}): Observable<RequestEvent<R>> {
    const withProgress = options.progress === undefined && method !== 'ping' ? { ...options, progress: true } : options;
    return outgoingRequest$<R>(this, { method, params, options: withProgress });
  }

  request<R extends object = JsonObject>(method: string, params?: JsonObject, options: PromiseRequestOptions = {}): Promise<R> {
    return outgoingRequest<R>(this, { method, params, options });
  }

  /** A request with transport hints (mirrored headers, the sent id): for the client API, not for users. */
  requestWith$<R extends object = JsonObject>(spec: OutgoingRequestSpec): Observable<RequestEvent<R>> {
    return outgoingRequest$<R>(this, spec);
  }

  async ping(options: PromiseRequestOptions = {}): Promise<void> {
    await outgoingRequest(this, { method: 'ping', params: undefined, options });
  }

  notify(method: string, params?: JsonObject): void {
    if (!this.admits('writable')) throw new LocalError('ConnectionClosed', 'The session is closed');
    const rule = methodRule(method);
    if (!this.admits('admit-outbound') && !this.admits('defer-outbound') && rule?.beforeHandshake !== true) {
      throw new LocalError('LifecycleViolation', `${method} cannot be sent before the handshake completes`);
    }
    const revision = this.revision;
    if (rule !== undefined && revision !== undefined) {
      if (!methodAvailable(rule, revision, this.role)) {
        throw new LocalError('MethodNotInRevision', `${method} cannot be sent by a ${this.role} in revision ${revision}`);
      }
      const missing = rule.requires?.(this.ownCapabilities, params, revision);
      if (missing !== undefined) {
        throw new LocalError('CapabilityNotNegotiated', `${method} needs this ${this.role}'s capability "${missing}", which it did not declare`);
      }
    }
    this.writer.write({ payload: notification(method, params) });
  }

  close(options: CloseOptions = {}): Promise<void> {
    this.closing ??= this.shutDown(options);
    return this.closing;
  }

  // --- SessionContext -----------------------------------------------------------------------------------

  admits(tag: LifecycleTag): boolean {
    return this.snapshot.hasTag(tag);
  }

  nextRequestId(): number {
    return ++this.lastId;
  }

  whenOutboundOpen(start: () => void): LocalError | undefined {
    if (!this.admits('defer-outbound')) {
      return this.admits('writable')
        ? new LocalError('LifecycleViolation', 'Requests cannot be sent before the handshake completes')
        : new LocalError('ConnectionClosed', 'The session is closed');
    }
    const deferred = (this.deferred ??= []);
    if (deferred.length >= this.limits.maxDeferredRequests) {
      return new LocalError('QueueFull', `Too many requests wait for the handshake: at most ${this.limits.maxDeferredRequests} may (maxDeferredRequests)`);
    }
    deferred.push(start);
    return undefined;
  }

  cancelDeferred(start: () => void): void {
    const index = this.deferred?.indexOf(start) ?? -1;
    if (index >= 0) this.deferred?.splice(index, 1);
  }

  diagnose(diagnostic: SessionDiagnostic): void {
    this.diagnosticsSubject?.next(diagnostic);
  }

  handleInitialize(id: RequestId, params: JsonObject | undefined, exchange: ExchangeKey | undefined): void {
    this.handshake?.handleInitialize(this, id, params, exchange);
  }

  get era(): 'legacy' | 'modern' {
    return this.envelope !== undefined || this.admits('admit-modern') ? 'modern' : 'legacy';
  }

  get modern(): ModernServing | undefined {
    return this.handshake?.modern;
  }

  becomeModern(): void {
    this.step({ type: 'MODERN' });
  }

  handleInitialized(): void {
    if (lifecycleState(this.snapshot) !== 'awaitingInitialized') return;
    this.step({ type: 'INITIALIZED' });
  }

  // --- lifecycle ----------------------------------------------------------------------------------------

  /** Steps the lifecycle machine and runs what entering the new state implies. */
  step(event: LifecycleEvent): void {
    const before = this.snapshot;
    const after = stepLifecycle(this.machine, before, event);
    if (after === before) return;
    this.snapshot = after;
    const state = lifecycleState(after);
    this.stateSubject?.next(state);
    if (state === 'operating') this.onOperating();
    else if (state === 'closed') this.onClosed();
  }

  private onOperating(): void {
    const deferred = this.deferred;
    this.deferred = undefined;
    if (deferred !== undefined) for (const start of deferred) start();
    const keepalive = this.runtime.keepalive;
    if (keepalive !== undefined && this.keepalive === undefined) {
      this.keepalive = startKeepalive(
        this,
        keepalive,
        (timeoutMs) => outgoingRequest$(this, { method: 'ping', params: undefined, options: { timeoutMs } }),
        (error) => void this.close({ reason: error }),
      );
    }
  }

  private async shutDown(options: CloseOptions): Promise<void> {
    if (this.state === 'closed') return;
    this.closeReason ??= options.reason;
    this.step({ type: 'CLOSE' });
    const drainMs = options.drainMs ?? 0;
    for (const request of this.incoming.values()) request.shutdownStarted();
    if (drainMs > 0 && this.incoming.size > 0) await this.drain(drainMs);
    // The transport may have gone while draining: then nothing can be answered or flushed any more.
    if (this.isWritable()) {
      this.answerUnfinished(drainMs);
      if (this.closeReason?.code !== 'SlowConsumer') await this.flush(options.flushMs ?? DEFAULT_FLUSH_MS);
    }
    this.finalize(this.closeReason ?? new LocalError('ConnectionClosed', 'The session was closed'));
    this.step({ type: 'DRAINED' });
    await this.transport.close(options.reason);
  }

  /** Waits until no incoming request runs, or `ms` pass. */
  private drain(ms: number): Promise<void> {
    return this.pollUntil(() => this.incoming.size === 0 || this.state === 'closed', ms, 50);
  }

  /** Resolves once `done()` holds (checked every `ms / 10`, at most `maxStepMs`) or `ms` passed, on the session's clock. */
  private pollUntil(done: () => boolean, ms: number, maxStepMs: number): Promise<void> {
    return new Promise((resolve) => {
      const deadline = this.clock.setTimeout(() => {
        poll.cancel();
        resolve();
      }, ms);
      const poll = this.clock.setInterval(() => {
        if (!done()) return;
        poll.cancel();
        deadline.cancel();
        resolve();
      }, Math.max(1, Math.min(maxStepMs, ms / 10)));
    });
  }

  /**
   * Every request still running when the drain time is over gets its one answer: an error naming it and the
   * deadline, instead of the silence a cancelled request gets.
   */
  private answerUnfinished(drainMs: number): void {
    if (this.incoming.size === 0) return;
    const running = [...this.incoming];
    this.incoming.clear();
    for (const [id, request] of running) {
      const message = `The ${this.role} shut down before ${request.method} (request ${JSON.stringify(id)}) finished: the shutdown deadline of ${drainMs} ms passed`;
      request.abandon(new LocalError('ConnectionClosed', message), { code: ErrorCode.InternalError, message, data: { shutdown: true, deadlineMs: drainMs } });
    }
  }

  /** Waits until the writer has handed every queued frame to the transport, or `ms` pass. */
  private flush(ms: number): Promise<void> {
    if (this.writer.queued === 0 || ms <= 0) return Promise.resolve();
    return this.pollUntil(() => this.writer.queued === 0 || !this.isWritable(), ms, 20);
  }

  private onTransportGone(error: LocalError | undefined): void {
    if (this.state === 'closed') return;
    // Nothing can be written any more: what finalize triggers (cancels of nested requests) must not reach it.
    this.transportGone = true;
    this.closeReason ??= error;
    // An error is built only when something is in flight to receive it (a stateless connection ends per request).
    if (this.incoming.size > 0 || this.outgoing.size > 0 || this.keepalive !== undefined || this.deferred !== undefined) {
      this.finalize(error ?? new LocalError('ConnectionClosed', 'The connection closed'));
    }
    this.step({ type: 'TRANSPORT_CLOSED' });
  }

  /** Ends everything in flight: running handlers are aborted, waiting requests fail. Idempotent. */
  private finalize(reason: LocalError): void {
    this.keepalive?.cancel();
    this.keepalive = undefined;
    this.deferred = undefined;
    const running = [...this.incoming.values()];
    const pending = [...this.outgoing.values()];
    this.incoming.clear();
    this.outgoing.clear();
    for (const request of running) request.cancel(reason);
    const failure = reason.code === 'ConnectionClosed' ? reason : new LocalError('ConnectionClosed', reason.message, { cause: reason });
    for (const request of pending) request.fail(failure);
  }

  private onClosed(): void {
    this.writer.discard(this.closeReason);
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.stateSubject?.complete();
    this.diagnosticsSubject?.complete();
    this.flowSubject?.complete();
    this.resolveClosed?.(this.closeReason);
    this.resolveClosed = undefined;
    this.runtime.onClosed?.(this, this.closeReason);
  }

  // --- OutboundWriterEvents (the session is its writer's event sink) ---------------------------------------

  isWritable(): boolean {
    return !this.transportGone && this.admits('writable');
  }

  onOverflow(error: LocalError): void {
    void this.close({ reason: error });
  }

  onFailure(error: LocalError): void {
    this.onTransportGone(error);
  }

  onFlow(status: FlowStatus): void {
    this.flowSubject?.next(status);
    this.runtime.onFlow?.(this, status);
  }

  /**
   * The session reads only while it can answer: while its writer waits for the peer, a medium that can stop
   * reading does (its peer's writes then wait in turn), so a burst of requests can never produce more answers and
   * refusals than the writer holds. Media with an exchange per request (HTTP, NATS) cannot, and need not.
   */
  onWaiting(waiting: boolean): void {
    if (waiting) this.transport.pauseReading?.();
    else this.transport.resumeReading?.();
  }

}
