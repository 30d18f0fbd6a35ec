/**
 * A session: one peer, one transport, one lifecycle. SessionCore composes the parts, each with one job:
 * - the lifecycle (lifecycle-stepper.ts): the machine snapshot (held here), its tags, and the actions the machine
 *   declares for each step, which this class performs (see "lifecycle effects" below);
 * - the inbound side: the session observes its transport and hands every frame to the inbound router (actors/);
 * - the outbound side: the writer (actors/outbound-writer.ts), whose event sink this class is, and the rules
 *   for notifications (notification-rules.ts);
 * - the requests we send (requests-we-send.ts): ids, the table awaiting answers, the starts deferred until the
 *   handshake completes;
 * - closing (session-closing.ts): drain, flush, the end of everything in flight, why the session ended;
 * - what observers see (session-signals.ts).
 * The shared state the actors read (negotiated revision and capabilities, the running requests) lives here;
 * the work itself happens in the actors. The role-specific handshakes live in server/ and client/.
 */
import type { Observable, Subscription } from 'rxjs';
import type { HandlerTable, PromiseRequestOptions, RequestEvent, RequestOptions, SessionView } from '../actors/handler-types.ts';
import { routeFrame } from '../actors/inbound-router.ts';
import type { ModernServing } from '../actors/modern/modern-serving.ts';
import { startKeepalive } from '../actors/keepalive.ts';
import { OutboundWriter, type OutboundWriterEvents } from '../actors/outbound-writer.ts';
import { type OutgoingRequestSpec, type RequestSink, outgoingRequest, outgoingRequest$, startOutgoingRequest } from '../actors/outgoing-request.ts';
import { withField } from '../core/objects.ts';
import { LazyTable } from '../core/lazy-table.ts';
import type { PendingRequest, RunningRequest, SessionContext, SessionDiagnostic } from '../actors/session-context.ts';
import { type FlowStatus, resolveBackpressure } from '../core/backpressure.ts';
import { type Clock, type TimerHandle, systemClock } from '../core/clock.ts';
import { LocalError } from '../core/errors.ts';
import type { AuthInfo } from '../core/auth.ts';
import { type JsonObject, type RequestId, notification } from '../core/jsonrpc.ts';
import { type Limits, resolveLimits } from '../core/limits.ts';
import type { AnyCapabilities, Implementation } from '../core/protocol/capabilities.ts';
import type { ParamsOf, RequestDeclaration, ResultOf } from '../core/protocol/declarations/declaration.ts';
import type { Role } from '../core/protocol/methods.ts';
import type { LegacyRevision } from '../core/protocol/versions.ts';
import type { ExchangeKey, InboundFrame, Transport } from '../core/transport.ts';
import { type LifecycleEvent, type LifecycleMachine, type LifecycleSnapshot, type LifecycleState, type LifecycleTag, initialLifecycle, lifecycleState } from '../machines/session-lifecycle.ts';
import { type LifecycleEffects, runLifecycleStep } from './lifecycle-stepper.ts';
import { notificationRefusal } from './notification-rules.ts';
import { RequestsWeSend } from './requests-we-send.ts';
import { type ClosingHost, SessionClosing } from './session-closing.ts';
import { SessionSignals } from './session-signals.ts';
import { MessageTap, type SessionMessage, type TapHost } from './message-tap.ts';
import type { CloseOptions, HandshakeSession, HandshakeStrategy, McpSession, SessionRuntimeOptions } from './session-types.ts';

export type { CloseOptions, HandshakeSession, HandshakeStrategy, McpSession, SessionRuntimeOptions } from './session-types.ts';

const noHandlers: HandlerTable = Object.freeze({ requests: new Map(), notifications: new Map() });

export class SessionCore implements SessionContext, McpSession, HandshakeSession, OutboundWriterEvents, LifecycleEffects, ClosingHost, TapHost<McpSession> {
  readonly limits: Limits;
  readonly clock: Clock;
  readonly writer: OutboundWriter;
  /** Empty while no request runs (an idle session's state): no Map then. */
  readonly incoming = new LazyTable<RequestId, RunningRequest>();
  readonly sent = new RequestsWeSend();
  revision: LegacyRevision | undefined;
  peerCapabilities: AnyCapabilities | undefined;
  peerInfo: Implementation | undefined;
  instructions: string | undefined;
  envelope: JsonObject | undefined;
  lastActivityAt: number;
  /** The lifecycle machine's snapshot (shared by every session in the same state; see lifecycle-stepper.ts). */
  private lifecycle: LifecycleSnapshot;
  // Observers' subjects and the closing sequence are made only when needed: an idle session holds neither.
  private signalsPart: SessionSignals | undefined;
  private closingPart: SessionClosing | undefined;
  private subscription: Subscription | undefined;
  private keepalive: TimerHandle | undefined;

  constructor(
    readonly role: Role,
    private readonly transport: Transport,
    machine: LifecycleMachine,
    readonly ownCapabilities: AnyCapabilities,
    readonly handlers: HandlerTable = noHandlers,
    private readonly handshake: HandshakeStrategy | undefined,
    private readonly runtime: SessionRuntimeOptions = {},
  ) {
    this.limits = resolveLimits(runtime.limits);
    this.clock = runtime.clock ?? systemClock;
    this.lastActivityAt = this.clock.now();
    this.lifecycle = initialLifecycle(machine);
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

  // --- the inbound side: the session observes its transport ------------------------------------------------

  /** Starts reading the transport. */
  start(): void {
    if (this.subscription !== undefined) return;
    // The session is its own observer: prototype methods cost no closures per session.
    this.subscription = this.transport.incoming$.subscribe(this);
  }

  next(frame: InboundFrame): void {
    this.lastActivityAt = this.clock.now();
    // The message tap lives in the writer (one field for both directions), present only while observed.
    const tap = this.writer.tap;
    if (tap !== undefined && frame.type === 'message') tap.inbound(frame.payload);
    routeFrame(this, frame);
  }

  /** The transport failed. */
  error(error: unknown): void {
    // A transport that says why it ended (a child process exit code, a socket error) is passed on as is.
    this.closing.transportEnded(error instanceof LocalError ? error : new LocalError('TransportFailed', 'The transport failed', { cause: error }));
  }

  /** The transport closed. */
  complete(): void {
    this.closing.transportEnded(undefined);
  }

  private get signals(): SessionSignals {
    return (this.signalsPart ??= new SessionSignals());
  }

  private get closing(): SessionClosing {
    return (this.closingPart ??= new SessionClosing(this));
  }

  // --- McpSession -----------------------------------------------------------------------------------------

  get view(): SessionView {
    return this;
  }

  get state(): LifecycleState {
    return lifecycleState(this.lifecycle);
  }

  get state$(): Observable<LifecycleState> {
    return this.signals.state$(this.state);
  }

  get diagnostics$(): Observable<SessionDiagnostic> {
    return this.signals.diagnostics$();
  }

  get flow$(): Observable<FlowStatus> {
    return this.signals.flow$(this.state === 'closed');
  }

  get messages$(): Observable<SessionMessage<McpSession>> {
    return MessageTap.observe<McpSession>(this, () => this.writer.tap as MessageTap<McpSession> | undefined, () => this.state === 'closed');
  }

  get closed(): Promise<LocalError | undefined> {
    return this.signals.closed(this.state === 'closed' ? { reason: this.closing.reason } : undefined);
  }

  get isSlow(): boolean {
    return this.writer.isSlow;
  }

  get queuedFrames(): number {
    return this.writer.queued;
  }

  get inFlight(): number {
    return this.incoming.size + this.sent.pending.size;
  }

  get principal(): string | undefined {
    return this.transport.principal;
  }

  get auth(): AuthInfo | undefined {
    return this.transport.auth;
  }

  get era(): 'legacy' | 'modern' {
    return this.envelope !== undefined || this.admits('admit-modern') ? 'modern' : 'legacy';
  }

  whenWritable(): Promise<void> {
    return this.writer.whenWritable();
  }

  request$<R extends object = JsonObject>(method: string, params?: JsonObject, options?: RequestOptions): Observable<RequestEvent<R>>;
  request$<D extends RequestDeclaration>(declaration: D, params: ParamsOf<D>, options?: RequestOptions): Observable<RequestEvent<ResultOf<D>>>;
  request$(target: string | RequestDeclaration, params?: unknown, options: RequestOptions = {}): Observable<RequestEvent<object>> {
    const method = typeof target === 'string' ? target : target.method;
    const withProgress = options.progress === undefined && method !== 'ping' ? withField(options, 'progress', true) : options;
    return outgoingRequest$<object>(this, { method, params: params as JsonObject | undefined, options: withProgress });
  }

  request<R extends object = JsonObject>(method: string, params?: JsonObject, options?: PromiseRequestOptions): Promise<R>;
  request<D extends RequestDeclaration>(declaration: D, params: ParamsOf<D>, options?: PromiseRequestOptions): Promise<ResultOf<D>>;
  request(target: string | RequestDeclaration, params?: unknown, options: PromiseRequestOptions = {}): Promise<object> {
    return outgoingRequest<object>(this, { method: typeof target === 'string' ? target : target.method, params: params as JsonObject | undefined, options });
  }

  /** A request with transport hints (mirrored headers, the sent id): for the client API, not for users. */
  requestWith$<R extends object = JsonObject>(spec: OutgoingRequestSpec): Observable<RequestEvent<R>> {
    return outgoingRequest$<R>(this, spec);
  }

  /**
   * {@link requestWith$} without an Observable (the client's direct path): the sink's `result` or `error` is called
   * once, where the answer is delivered.
   */
  requestTo<R extends object = JsonObject>(spec: OutgoingRequestSpec & { readonly options: PromiseRequestOptions }, sink: RequestSink<R>): void {
    startOutgoingRequest<R>(this, spec, sink);
  }

  async ping(options: PromiseRequestOptions = {}): Promise<void> {
    await outgoingRequest(this, { method: 'ping', params: undefined, options });
  }

  notify(method: string, params?: JsonObject): void {
    const refusal = notificationRefusal(this, method, params);
    if (refusal !== undefined) throw refusal;
    this.writer.write({ payload: notification(method, params) });
  }

  close(options: CloseOptions = {}): Promise<void> {
    return this.closing.close(options);
  }

  // --- SessionContext (what the actors use) ---------------------------------------------------------------

  get outgoing(): LazyTable<RequestId, PendingRequest> {
    return this.sent.pending;
  }

  get modern(): ModernServing | undefined {
    return this.handshake?.modern;
  }

  admits(tag: LifecycleTag): boolean {
    return this.lifecycle.hasTag(tag);
  }

  nextRequestId(): number {
    return this.sent.nextId();
  }

  watchDeadline(deadline: number): void {
    this.sent.watchDeadline(deadline, this.clock);
  }

  settleOutgoing(id: RequestId): void {
    this.sent.settle(id);
  }

  whenOutboundOpen(start: () => void): LocalError | undefined {
    if (!this.admits('defer-outbound')) {
      return this.admits('writable')
        ? new LocalError('LifecycleViolation', 'Requests cannot be sent before the handshake completes')
        : new LocalError('ConnectionClosed', 'The session is closed');
    }
    return this.sent.defer(start, this.limits.maxDeferredRequests);
  }

  cancelDeferred(start: () => void): void {
    this.sent.cancelDeferred(start);
  }

  diagnose(diagnostic: SessionDiagnostic): void {
    this.signalsPart?.diagnose(diagnostic);
  }

  handleInitialize(id: RequestId, params: JsonObject | undefined, exchange: ExchangeKey | undefined): void {
    this.handshake?.handleInitialize(this, id, params, exchange);
  }

  handleInitialized(): void {
    if (this.state !== 'awaitingInitialized') return;
    this.step({ type: 'INITIALIZED' });
  }

  becomeModern(): void {
    this.step({ type: 'MODERN' });
  }

  // --- lifecycle ------------------------------------------------------------------------------------------

  /** Steps the lifecycle machine; the effects it declares for the step are performed below. */
  step(event: LifecycleEvent): void {
    runLifecycleStep(this.lifecycle, event, this);
  }

  handshakeRefused(): void {
    this.transport.negotiated?.(undefined);
  }

  // --- lifecycle effects (LifecycleEffects: one method per action the machine declares) -------------------

  entered(snapshot: LifecycleSnapshot, state: LifecycleState): void {
    this.lifecycle = snapshot;
    this.signalsPart?.stateChanged(state);
  }

  announceRevision(): void {
    if (this.revision !== undefined) this.transport.negotiated?.(this.revision);
  }

  releaseDeferred(): void {
    this.sent.releaseDeferred();
  }

  startKeepalive(): void {
    const keepalive = this.runtime.keepalive;
    if (keepalive === undefined || this.keepalive !== undefined) return;
    this.keepalive = startKeepalive(
      this,
      keepalive,
      (timeoutMs) => outgoingRequest$(this, { method: 'ping', params: undefined, options: { timeoutMs } }),
      (error) => void this.close({ reason: error }),
    );
  }

  stopKeepalive(): void {
    this.keepalive?.cancel();
    this.keepalive = undefined;
  }

  signalShutdown(): void {
    for (const request of this.incoming.values()) request.shutdownStarted();
  }

  release(): void {
    const reason = this.closing.reason;
    this.writer.discard(reason);
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.signalsPart?.complete(reason);
    const tap = this.writer.tap as MessageTap<McpSession> | undefined;
    if (tap !== undefined) {
      this.attachTap(undefined);
      tap.complete();
    }
    this.runtime.onClosed?.(this, reason);
  }

  // --- TapHost (the message tap) -------------------------------------------------------------------------

  get self(): McpSession {
    return this;
  }

  now(): number {
    return this.clock.now();
  }

  attachTap(tap: MessageTap<McpSession> | undefined): void {
    this.writer.tap = tap;
  }

  // --- ClosingHost ----------------------------------------------------------------------------------------

  get keepaliveRunning(): boolean {
    return this.keepalive !== undefined;
  }

  closeTransport(reason: LocalError | undefined): Promise<void> {
    return this.transport.close(reason);
  }

  // --- the outbound side: the session is its writer's event sink -------------------------------------------

  isWritable(): boolean {
    return this.closingPart?.transportGone !== true && this.admits('writable');
  }

  onOverflow(error: LocalError): void {
    void this.close({ reason: error });
  }

  onFailure(error: LocalError): void {
    this.closing.transportEnded(error);
  }

  onFlow(status: FlowStatus): void {
    this.signalsPart?.flow(status);
    this.runtime.onFlow?.(this, status);
  }

  /**
   * A server reads only while it can answer: while its writer waits for the peer, a medium that can stop
   * reading does (its peer's writes then wait in turn), so a burst of requests can never produce more answers and
   * refusals than the writer holds. Media with an exchange per request (HTTP, NATS) cannot, and need not.
   *
   * A client never stops reading: what it reads are mostly answers, which free its peer. If both ends stopped
   * reading while their writes waited, each would wait for the other for ever; a server process writing its
   * stdout synchronously (Node does, to a pipe) even stops altogether on a full pipe. What a client still has to
   * answer (pings, sampling, roots) stays bounded by its writer's queue.
   */
  onWaiting(waiting: boolean): void {
    if (this.role !== 'server') return;
    if (waiting) this.transport.pauseReading?.();
    else this.transport.resumeReading?.();
  }
}
