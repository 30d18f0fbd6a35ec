/**
 * One actor per outgoing request. It sends the request, routes progress to its sink, runs the timeouts, and
 * ends in exactly one of: result, peer error, timeout, abort, or connection loss.
 *
 * The same actor backs the Observable API (the sink is the subscriber; unsubscribing aborts) and the Promise
 * API (the sink settles a promise), so both behave identically.
 */
import { Observable, type Subscriber } from 'rxjs';
import { abortedError, onAbort } from '../core/abort.ts';
import { LocalError, WireError } from '../core/errors.ts';
import { type JsonObject, request as requestMessage } from '../core/jsonrpc.ts';
import { withField } from '../core/objects.ts';
import { methodAvailable, methodRule } from '../core/protocol/methods.ts';
import type { ExchangeKey } from '../core/transport.ts';
import type { Clock } from '../core/clock.ts';
import type { ActionImplementations, MachineHost, MachineInspection } from '../machines/executor.ts';
import { type OutgoingAction, type OutgoingEvent, type OutgoingSnapshot, outgoingRequestRunner } from '../machines/outgoing-request.ts';
import type { HandlerTable, PromiseRequestOptions, RequestEvent, RequestOptions } from './handler-types.ts';
import { type ProgressEvent, readProgress } from './progress.ts';
import type { PendingRequest, SessionContext } from './session-context.ts';

export interface RequestSink<R> {
  progress(event: ProgressEvent): void;
  result(result: R): void;
  error(error: Error): void;
}

export interface OutgoingRequestSpec {
  readonly method: string;
  readonly params: JsonObject | undefined;
  readonly options: RequestOptions;
  /** The exchange of the inbound request this one is made for (routes it on that request's stream). */
  readonly exchange?: ExchangeKey;
  /** Whether the request may be cancelled with `notifications/cancelled` (not `initialize`). */
  readonly cancellable?: boolean;
  /** Envelope metadata for media that carry it (tool arguments mirrored into HTTP headers). */
  readonly mirror?: Readonly<Record<string, string>>;
  /** Told the request's id once it is sent (a listen's notifications are tagged with it). */
  readonly onSent?: (id: number) => void;
}

/**
 * One request we send. Its states are the outgoing-request machine's (machines/outgoing-request.ts), stepped by
 * the executor with this object as host: it holds the interned snapshot (a pointer) and implements the machine's
 * actions (below); what the caller hears (progress, the result, the error) is delivered here once the step is taken.
 */
class OutgoingRequest<R extends object> implements PendingRequest, MachineHost<OutgoingSnapshot, OutgoingAction> {
  private snapshot: OutgoingSnapshot = outgoingRequestRunner.initial;
  private id = 0;
  /** When it times out (the session's deadline sweep reads it; see actors/request-deadlines.ts). */
  deadline = Infinity;
  private startedAt = 0;
  private lastProgress = -Infinity;
  private removeAbortListener: (() => void) | undefined;
  /** Set only while the request waits for the handshake: most requests never need it. */
  private sendDeferred: (() => void) | undefined;
  /** The machine has no delays: nothing is ever scheduled for a request (no slot is made for it). */
  declare scheduled: undefined;

  constructor(
    private readonly session: SessionContext,
    private readonly spec: OutgoingRequestSpec,
    private readonly sink: RequestSink<R>,
  ) {}

  start(): void {
    const refusal = this.refusal();
    if (refusal !== undefined) return this.finish({ type: 'FAIL' }, refusal);
    const signal = this.spec.options.signal;
    if (signal !== undefined) {
      if (signal.aborted) return this.finish({ type: 'ABORT' }, abortedError(signal.reason));
      this.removeAbortListener = onAbort(signal, (reason) => this.abort(abortedError(reason)));
    }
    if (this.session.admits('admit-outbound') || this.isHandshakeOrPing()) return this.step({ type: 'SEND' });
    this.step({ type: 'DEFER' });
    this.sendDeferred = () => this.step({ type: 'SEND' });
    const deferral = this.session.whenOutboundOpen(this.sendDeferred);
    if (deferral !== undefined) this.finish({ type: 'FAIL' }, deferral);
  }

  /** Stops waiting: the caller unsubscribed or aborted (or its time ran out). A sent request's peer is told. */
  abort(error: LocalError): void {
    this.finish(error.code === 'RequestTimeout' ? { type: 'TIMEOUT' } : { type: 'ABORT' }, error);
  }

  onResponse(message: Parameters<PendingRequest['onResponse']>[0]): void {
    if (!this.snapshot.hasTag('sent')) return;
    if (message.error !== undefined) return this.finish({ type: 'REJECTED' }, WireError.fromObject(message.error));
    this.step({ type: 'ANSWER' });
    this.sink.result(message.result as R);
  }

  onProgress(params: JsonObject): void {
    if (!this.snapshot.hasTag('sent') || this.spec.options.progress !== true) return;
    const event = readProgress(params);
    // Progress must increase; a report that does not is dropped rather than passed on.
    if (event === undefined || event.progress <= this.lastProgress) {
      this.session.diagnose({ type: 'dropped-progress', detail: `progress for request ${this.id} is malformed or does not increase` });
      return;
    }
    this.step({ type: 'PROGRESS' });
    this.lastProgress = event.progress;
    if (this.spec.options.resetTimeoutOnProgress === true) this.setDeadline(this.session.clock.now());
    this.sink.progress(event);
  }

  fail(error: LocalError): void {
    this.finish({ type: 'FAIL' }, error);
  }

  expire(): void {
    if (!this.snapshot.hasTag('sent')) return;
    const elapsed = this.session.clock.now() - this.startedAt;
    this.abort(new LocalError('RequestTimeout', `${this.spec.method} got no answer within ${elapsed} ms`));
  }

  private isSettled(): boolean {
    return this.snapshot.hasTag('settled');
  }

  private step(event: OutgoingEvent): void {
    outgoingRequestRunner.run(this, event);
  }

  /** Ends the request with `event` and tells the caller `error`, once: a settled request takes nothing more. */
  private finish(event: OutgoingEvent, error: Error): void {
    if (this.isSettled()) return;
    this.step(event);
    // Only a step that settled the request answers the caller (an event its state does not take changes nothing).
    if (this.isSettled()) this.sink.error(error);
  }

  // --- the executor's host (MachineHost) -------------------------------------------------------------------

  get clock(): Clock {
    return this.session.clock;
  }

  machineSnapshot(): OutgoingSnapshot {
    return this.snapshot;
  }

  enterSnapshot(snapshot: OutgoingSnapshot): void {
    this.snapshot = snapshot;
  }

  get actions(): ActionImplementations<OutgoingAction> {
    return this;
  }

  delayOf(name: never): number {
    return name;
  }

  get inspected(): boolean {
    return this.session.machineInspector !== undefined;
  }

  inspect(inspection: MachineInspection): void {
    this.session.machineInspector?.(inspection);
  }

  get inspectionId(): string | undefined {
    return this.session.inspectionId;
  }

  // --- machine actions (machines/outgoing-request.ts declares when each runs) ------------------------------

  send(): void {
    const session = this.session;
    this.sendDeferred = undefined;
    this.id = session.nextRequestId();
    const now = session.clock.now();
    this.startedAt = now;
    session.outgoing.set(this.id, this);
    const options = this.spec.options;
    let params = this.spec.params;
    // A modern client's envelope (its version and capabilities) goes on every request; the caller's own _meta wins.
    const envelope = session.envelope;
    const given = params?.['_meta'];
    // The client API makes its common requests with the envelope already as their _meta: that is not the caller's own.
    const ownMeta = given === envelope ? undefined : given;
    if (envelope !== undefined && options.progress !== true && options.meta === undefined && ownMeta === undefined) {
      // The common modern request: its _meta is the envelope itself (frozen, shared by every request), not a copy.
      if (given !== envelope) params = withField(params, '_meta', envelope);
    } else if (options.progress === true || options.meta !== undefined || envelope !== undefined) {
      const meta: Record<string, unknown> = { ...envelope, ...(ownMeta as JsonObject | undefined), ...options.meta };
      if (options.progress === true) meta['progressToken'] = this.id;
      params = withField(params, '_meta', meta);
    }
    this.setDeadline(now);
    const message = requestMessage(this.id, this.spec.method, params);
    const { exchange, mirror } = this.spec;
    session.writer.write(
      exchange === undefined && mirror === undefined
        ? { payload: message }
        : { payload: message, ...(exchange === undefined ? {} : { exchange }), ...(mirror === undefined ? {} : { mirror }) },
    );
    this.spec.onSent?.(this.id);
  }

  forget(): void {
    this.session.settleOutgoing(this.id);
  }

  sendCancel(params: { readonly reason: 'timeout' | 'aborted by the requester' }): void {
    if (this.spec.cancellable === false || this.spec.method === 'initialize') return;
    const message = { jsonrpc: '2.0' as const, method: 'notifications/cancelled', params: { requestId: this.id, reason: params.reason } };
    this.session.writer.write(this.spec.exchange === undefined ? { payload: message } : { payload: message, exchange: this.spec.exchange });
  }

  cancelDeferral(): void {
    const start = this.sendDeferred;
    this.sendDeferred = undefined;
    if (start !== undefined) this.session.cancelDeferred(start);
  }

  release(): void {
    this.removeAbortListener?.();
    this.removeAbortListener = undefined;
  }

  // --- what the request needs to know -----------------------------------------------------------------------

  private refusal(): LocalError | undefined {
    const session = this.session;
    if (!session.admits('writable')) return new LocalError('ConnectionClosed', 'The session is closed');
    const rule = methodRule(this.spec.method);
    const revision = session.revision;
    if (rule === undefined || revision === undefined) return undefined;
    if (!methodAvailable(rule, revision, session.role)) {
      return new LocalError('MethodNotInRevision', `${this.spec.method} cannot be sent by a ${session.role} in revision ${revision}`);
    }
    const peer = session.peerCapabilities;
    const missing = peer === undefined ? undefined : rule.requires?.(peer, this.spec.params, revision);
    if (missing !== undefined) {
      return new LocalError('CapabilityNotNegotiated', `${this.spec.method} needs the peer capability "${missing}", which it did not declare`);
    }
    if (session.outgoing.size >= session.limits.maxOutgoingInFlight) {
      return new LocalError('QueueFull', `Too many requests in flight: this session waits for at most ${session.limits.maxOutgoingInFlight} answers at once (maxOutgoingInFlight); retry once earlier requests finished`);
    }
    return undefined;
  }

  private isHandshakeOrPing(): boolean {
    const method = this.spec.method;
    // `server/discover` is how a client finds out which era a server speaks, before any handshake.
    return (method === 'ping' && this.session.admits('admit-ping')) || ((method === 'initialize' || method === 'server/discover') && this.session.admits('admit-handshake'));
  }

  /**
   * Sets when the request times out, from `now`: its own timeout, or with `resetTimeoutOnProgress` its timeout
   * from now capped by the total allowed since it was sent. The session's deadline sweep times it out then.
   */
  private setDeadline(now: number): void {
    const options = this.spec.options;
    const limits = this.session.limits;
    let wait = options.timeoutMs ?? limits.requestTimeoutMs;
    if (options.resetTimeoutOnProgress === true) {
      const total = options.maxTotalTimeoutMs ?? limits.maxTotalTimeoutMs;
      wait = Math.min(wait, this.startedAt + total - now);
    }
    if (!Number.isFinite(wait)) {
      this.deadline = Infinity;
      return;
    }
    this.deadline = now + Math.max(0, wait);
    this.session.watchDeadline(this.deadline);
  }
}

/**
 * An outgoing request as an Observable: subscribing sends it; progress arrives as values before the result;
 * unsubscribing before the result cancels it.
 */
/** Feeds an actor's outcome to an Observable subscriber. Prototype methods: no closures per request. */
class SubscriberSink<R> implements RequestSink<R> {
  settled = false;

  constructor(private readonly subscriber: Subscriber<RequestEvent<R>>) {}

  progress(event: ProgressEvent): void {
    this.subscriber.next(event);
  }

  result(result: R): void {
    this.settled = true;
    this.subscriber.next({ type: 'result', result });
    this.subscriber.complete();
  }

  error(error: Error): void {
    this.settled = true;
    this.subscriber.error(error);
  }
}

/** Feeds an actor's outcome to a Promise. */
class PromiseSink<R> implements RequestSink<R> {
  constructor(
    readonly result: (result: R) => void,
    readonly error: (error: Error) => void,
    private readonly onProgress: PromiseRequestOptions['onProgress'],
  ) {}

  progress(event: ProgressEvent): void {
    this.onProgress?.(event);
  }
}

/**
 * An outgoing request as an Observable: subscribing sends it; progress arrives as values before the result;
 * unsubscribing before the result cancels it.
 */
export function outgoingRequest$<R extends object>(session: SessionContext, spec: OutgoingRequestSpec): Observable<RequestEvent<R>> {
  const interception = (session.handlers as InterceptableHandlerTable).outgoing;
  if (interception !== undefined) {
    const intercepted = interception.request$(session, spec, sendRequest$);
    if (intercepted !== undefined) return intercepted as Observable<RequestEvent<R>>;
  }
  return sendRequest$<R>(session, spec);
}

/** Sends a request as an Observable, past any interceptors (they call it at the end of their chain). */
function sendRequest$<R extends object>(session: SessionContext, spec: OutgoingRequestSpec): Observable<RequestEvent<R>> {
  return new Observable<RequestEvent<R>>((subscriber) => {
    const sink = new SubscriberSink<R>(subscriber);
    const actor = new OutgoingRequest<R>(session, spec, sink);
    actor.start();
    return () => {
      if (!sink.settled) actor.abort(new LocalError('RequestAborted', 'The subscriber unsubscribed before the result'));
    };
  });
}

/** An outgoing request as a Promise of its result (the same actor as {@link outgoingRequest$}). */
export function outgoingRequest<R extends object>(session: SessionContext, spec: OutgoingRequestSpec & { readonly options: PromiseRequestOptions }): Promise<R> {
  return new Promise<R>((resolve, reject) => startOutgoingRequest(session, spec, new PromiseSink<R>(resolve, reject, spec.options.onProgress)));
}

/**
 * {@link outgoingRequest} with the caller's own sink: its `result` runs where the answer is delivered (a caller that
 * goes on from there, like the client's next input round, stays in that context, e.g. its trace), and a caller with
 * state per request keeps it in the sink (an object with prototype methods: no closures per request).
 */
export function startOutgoingRequest<R extends object>(session: SessionContext, spec: OutgoingRequestSpec & { readonly options: PromiseRequestOptions }, sink: RequestSink<R>): void {
  const options = spec.options;
  const wantsProgress = options.progress ?? (options.onProgress !== undefined || options.resetTimeoutOnProgress === true);
  // The caller's spec as it is when it already says whether progress is wanted (the common case): no copies.
  const final = wantsProgress === (options.progress ?? false) ? spec : withField(spec, 'options', withField(options, 'progress', wantsProgress));
  const interception = (session.handlers as InterceptableHandlerTable).outgoing;
  const intercepted = interception?.request$(session, final, sendRequest$);
  if (intercepted !== undefined) return settleIntercepted(intercepted as Observable<RequestEvent<R>>, sink);
  new OutgoingRequest<R>(session, final, sink).start();
}

/** The Promise form of an intercepted request: its last event is the result, its progress goes to the sink's. */
function settleIntercepted<R>(events$: Observable<RequestEvent<R>>, sink: RequestSink<R>): void {
  let result: { readonly value: R } | undefined;
  events$.subscribe({
    next: (event) => {
      if (event.type === 'progress') sink.progress(event);
      else result = { value: event.result };
    },
    error: (error: unknown) => sink.error(error instanceof Error ? error : new LocalError('ProtocolViolation', String(error))),
    complete: () => (result === undefined ? sink.error(new LocalError('ProtocolViolation', 'An interceptor ended the request without a result')) : sink.result(result.value)),
  });
}

/**
 * Interceptors of the requests a side sends, installed on its handler table by `use` (absent while it has none,
 * so a side without interceptors sends as it always did).
 */
export interface OutgoingInterception {
  /** The request through its interceptors, ending in `send`; undefined when none may see it. */
  request$(session: SessionContext, spec: OutgoingRequestSpec, send: (session: SessionContext, spec: OutgoingRequestSpec) => Observable<RequestEvent<object>>): Observable<RequestEvent<object>> | undefined;
}

/** A handler table that may carry the interception of outgoing requests. */
export interface InterceptableHandlerTable extends HandlerTable {
  outgoing?: OutgoingInterception | undefined;
}
