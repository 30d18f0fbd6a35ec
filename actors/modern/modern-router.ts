/**
 * Inbound routing of a connection in the modern era (2026-07-28). Each request is judged on its own
 * envelope: the method must exist in the era and be backed by a declared capability, the `_meta` must name
 * a supported version and the client's capabilities, and a retry's sealed state must open. Only then does
 * the request get an actor, with a session view made of its own envelope (the server must not infer
 * anything from earlier requests).
 */
import { ErrorCode } from '../../core/error-codes.ts';
import type { LocalError } from '../../core/errors.ts';
import type { JsonObject, JsonRpcNotification, JsonRpcRequest } from '../../core/jsonrpc.ts';
import { errorResponse } from '../../core/jsonrpc.ts';
import { INPUT_CAPABLE_METHODS, MODERN_CLIENT_REQUESTS, MODERN_SERVER_CAPABILITIES, type RequestEnvelope, readEnvelope } from '../../core/protocol/modern.ts';
import type { ExchangeKey, FrameOrigin } from '../../core/transport.ts';
import type { InputRound, SessionView } from '../handler-types.ts';
import { IncomingRequest, type ModernScope, type ResponseRoute, methodNotFound, sendResponse, tooManyInFlight } from '../incoming-request.ts';
import { isProgressToken, progressTokenOf } from '../../core/progress-token.ts';
import type { SessionContext } from '../session-context.ts';
import type { RequestInputRound } from './input-round.ts';
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
  // `withoutId` answers a request whose id is taken: an error with that id would answer the running request.
  const reject = (error: { code: number; message: string; data?: unknown }, withoutId = false): void =>
    sendResponse(session, route, errorResponse(withoutId ? undefined : id, error));
  if (session.incoming.has(id)) {
    return reject({ code: ErrorCode.InvalidRequest, message: `Invalid request: id ${JSON.stringify(id)} is already in use by a running request` }, true);
  }
  const handler = serving.handlers.get(method);
  // An extension's client requests are this era's requests on a server that serves the extension.
  const extension = serving.extensionMethod(method);
  if (handler === undefined || !(MODERN_CLIENT_REQUESTS.has(method) || extension !== undefined)) {
    if (method === 'initialize') {
      return reject({ ...methodNotFound(method, 'this connection speaks revision 2026-07-28, which has no initialize'), data: { supported: [...serving.supported] } });
    }
    return reject(methodNotFound(method, handler === undefined ? undefined : 'not part of revision 2026-07-28'));
  }
  const needs = MODERN_SERVER_CAPABILITIES.get(method);
  if (needs !== undefined && serving.capabilities()[needs] === undefined) return reject(methodNotFound(method, 'this server offers no such feature'));
  const read = readEnvelope(params, serving.supported);
  if (!read.ok) return reject(undecidedHint === undefined ? read.error : { ...read.error, message: `${read.error.message} (${undecidedHint})` });
  const envelope = read.envelope;
  if (mirror !== undefined) {
    const mismatch = serving.checkMirror(method, params, mirror);
    if (mismatch !== undefined) return reject({ code: ErrorCode.HeaderMismatch, message: `Header mismatch: ${mismatch}` });
  }
  if (session.incoming.size >= session.limits.maxIncomingInFlight) {
    return reject(tooManyInFlight(session.limits.maxIncomingInFlight));
  }
  const token = progressTokenOf(params);
  if (token !== undefined && !isProgressToken(token)) {
    return reject({ code: ErrorCode.InvalidParams, message: 'Invalid params: _meta.progressToken must be a string or a number' });
  }
  let round: RequestInputRound | undefined;
  if (INPUT_CAPABLE_METHODS.has(method) || extension?.modern?.inputCapable === true) {
    const opened = serving.openRound(method, params, envelope, origin?.principal);
    if (!(opened instanceof Error)) round = opened;
    else return reject(opened.toObject());
  }
  const untimed = serving.untimed.has(method) || extension?.modern?.untimed === true;
  const scope = new RequestScope(serving, envelope, round, untimed ? Infinity : undefined, origin?.principal);
  // A modern request carries its own identity; the connection's plays no part.
  const request = new IncomingRequest(session, id, method, params, token, route, scope, origin?.auth);
  round?.attach({
    seal: (inputs) => serving.seal(method, params, origin?.principal, inputs),
    answer: (result) => request.answerEarly(result),
  });
  request.run(handler);
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

/** Per request: the envelope stands where a session's negotiated state would be. */
class RequestScope implements ModernScope {
  readonly view: SessionView;

  constructor(
    private readonly serving: ModernServing,
    readonly envelope: RequestEnvelope,
    readonly inputs: InputRound | undefined,
    readonly timeoutMs: number | undefined,
    /** Who the transport authenticated the caller as (interceptors read it). */
    readonly principal: string | undefined,
  ) {
    this.view = { role: 'server', revision: envelope.revision, peerInfo: envelope.clientInfo, peerCapabilities: envelope.clientCapabilities };
  }

  decorate(method: string, result: JsonObject): JsonObject {
    return this.serving.decorate(method, result);
  }
}
