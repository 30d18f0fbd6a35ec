/**
 * Inbound routing of a connection in the modern era (2026-07-28). Each request is judged on its own
 * envelope: the method must exist in the era and be backed by a declared capability, the `_meta` must name
 * a supported version and the client's capabilities, and a retry's sealed state must open. Only then does
 * the request get an actor, with a session view made of its own envelope (the server must not infer
 * anything from earlier requests).
 */
import type { MachineInspector } from '../../machines/executor.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import type { LocalError } from '../../core/errors.ts';
import type { JsonObject, JsonRpcNotification, JsonRpcRequest } from '../../core/jsonrpc.ts';
import { errorResponse } from '../../core/jsonrpc.ts';
import { type RequestEnvelope, envelopeOrError, isEnvelopeError } from '../../core/protocol/modern.ts';
import type { ExchangeKey, FrameOrigin } from '../../core/transport.ts';
import type { ClientCapabilities, Implementation } from '../../core/protocol/capabilities.ts';
import type { ModernRevision } from '../../core/protocol/versions.ts';
import type { InputRound, SessionView } from '../handler-types.ts';
import { IncomingRequest, type ModernScope, type ResponseRoute, methodNotFound, sendResponse, tooManyInFlight } from '../incoming-request.ts';
import { isProgressToken, progressTokenOf } from '../../core/progress-token.ts';
import type { SessionContext } from '../session-context.ts';
import { type InputRoundSink, RequestInputRound, type SealedInputs } from './input-round.ts';
import type { ModernServing } from './modern-serving.ts';

export function routeModernRequest(
  session: SessionContext,
  serving: ModernServing,
  message: JsonRpcRequest,
  route: ResponseRoute,
  origin: FrameOrigin | undefined,
  mirror: ((lowercaseName: string) => string | undefined) | undefined,
  /** Added to an envelope error: the connection has no era yet, and the client may have meant the legacy one. */
  undecidedHint?: string,
): void {
  const { id, method, params } = message;
  if (session.incoming.has(id)) {
    // Answered without the id: an error with that id would answer the running request.
    return reject(session, route, undefined, { code: ErrorCode.InvalidRequest, message: `Invalid request: id ${JSON.stringify(id)} is already in use by a running request` });
  }
  const handler = serving.handlers.get(method);
  // An extension's client requests are this era's requests on a server that serves the extension.
  const facts = serving.facts(method);
  if (handler === undefined || !facts.request) {
    if (method === 'initialize') {
      return reject(session, route, id, { ...methodNotFound(method, 'this connection speaks revision 2026-07-28, which has no initialize'), data: { supported: [...serving.supported] } });
    }
    return reject(session, route, id, methodNotFound(method, handler === undefined ? undefined : 'not part of revision 2026-07-28'));
  }
  const needs = facts.needs;
  if (needs !== undefined && serving.capabilities()[needs] === undefined) return reject(session, route, id, methodNotFound(method, 'this server offers no such feature'));
  // The envelope is read once, here; everything after it (the view, the feature context) uses what this read.
  const envelope = envelopeOrError(params, serving.supported);
  if (isEnvelopeError(envelope)) return reject(session, route, id, undecidedHint === undefined ? envelope : { ...envelope, message: `${envelope.message} (${undecidedHint})` });
  if (mirror !== undefined) {
    const mismatch = serving.checkMirror(method, params, mirror);
    if (mismatch !== undefined) return reject(session, route, id, { code: ErrorCode.HeaderMismatch, message: `Header mismatch: ${mismatch}` });
  }
  if (session.incoming.size >= session.limits.maxIncomingInFlight) {
    return reject(session, route, id, tooManyInFlight(session.limits.maxIncomingInFlight));
  }
  const token = progressTokenOf(params);
  if (token !== undefined && !isProgressToken(token)) {
    return reject(session, route, id, { code: ErrorCode.InvalidParams, message: 'Invalid params: _meta.progressToken must be a string or a number' });
  }
  const inputCapable = facts.inputCapable;
  let round: RequestInputRound | undefined;
  // A retry (answers or sealed state) is checked before anything runs; a first round, the common case, makes its
  // round only if the handler asks for input (RequestScope.inputs).
  if (inputCapable && params !== undefined && ('inputResponses' in params || 'requestState' in params)) {
    const opened = serving.openRound(method, params, envelope, origin?.principal);
    if (opened instanceof Error) return reject(session, route, id, opened.toObject());
    round = opened;
  }
  const scope = new RequestScope(serving, method, params, envelope, inputCapable, round, facts.untimed ? Infinity : undefined, origin?.principal, session);
  // A modern request carries its own identity; the connection's plays no part.
  const request = new IncomingRequest(session, id, method, params, token, route, scope, origin?.auth);
  scope.request = request;
  round?.attach(scope);
  request.run(handler);
}

function reject(session: SessionContext, route: ResponseRoute, id: JsonRpcRequest['id'] | undefined, error: { code: number; message: string; data?: unknown }): void {
  sendResponse(session, route, errorResponse(id, error));
}

/** Notifications a client may send in the modern era: only cancellation means anything to the server. */
export function routeModernNotification(session: SessionContext, message: JsonRpcNotification, cancel: (params: JsonObject | undefined) => void): void {
  if (message.method === 'notifications/cancelled') return cancel(message.params);
  session.diagnose({ type: 'dropped-notification', detail: `${message.method} has no meaning to a 2026-07-28 server` });
}

/**
 * The peer left an exchange (closed its HTTP response stream): in this era that cancels what ran on it; in the
 * legacy era too when the medium says so (`cancels` on the frame).
 */
export function cancelExchange(session: SessionContext, exchange: ExchangeKey, reason: LocalError): void {
  for (const running of [...session.incoming.values()]) {
    if (running.exchange === exchange) running.cancel(reason);
  }
}

/**
 * Per request: the envelope stands where a session's negotiated state would be, and the scope is the session view
 * its handler sees (read from the envelope: no view object per request). It is also the sink of the request's
 * input round (sealing its state, answering `input_required`), so a round costs no closures.
 */
class RequestScope implements ModernScope, InputRoundSink, SessionView {
  /** The request this scope belongs to (set right after both are made). */
  request: IncomingRequest | undefined;

  constructor(
    private readonly serving: ModernServing,
    private readonly method: string,
    private readonly params: JsonObject | undefined,
    readonly envelope: RequestEnvelope,
    /** Whether the method may ask the client for input: only then is there a round. */
    private readonly inputCapable: boolean,
    private round: RequestInputRound | undefined,
    readonly timeoutMs: number | undefined,
    /** Who the transport authenticated the caller as (interceptors read it). */
    readonly principal: string | undefined,
    /** The connection's session: its machines' inspection hook sees the request's input round. */
    private readonly session: SessionContext,
  ) {}

  get machineInspector(): MachineInspector | undefined {
    return this.session.machineInspector;
  }

  get inspectionId(): string | undefined {
    return this.session.inspectionId;
  }

  get view(): SessionView {
    return this;
  }

  get role(): 'server' {
    return 'server';
  }

  get revision(): ModernRevision {
    return this.envelope.revision;
  }

  get peerInfo(): Implementation | undefined {
    return this.envelope.clientInfo;
  }

  get peerCapabilities(): ClientCapabilities {
    return this.envelope.clientCapabilities;
  }

  /** The input round, made when first asked for: a first round that never needs input never makes one. */
  get inputs(): InputRound | undefined {
    if (this.round === undefined && this.inputCapable) {
      this.round = new RequestInputRound(this.envelope, NO_ANSWERS, 0);
      this.round.attach(this);
    }
    return this.round;
  }

  seal(inputs: SealedInputs): string {
    return this.serving.seal(this.method, this.params, this.principal, inputs);
  }

  answer(result: JsonObject): void {
    this.request?.answerEarly(result);
  }

  decorate(method: string, result: JsonObject): JsonObject {
    return this.serving.decorate(method, result);
  }
}

const NO_ANSWERS: { readonly [key: string]: unknown } = Object.freeze({});
