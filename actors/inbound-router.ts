/**
 * Inbound routing: every frame a session receives passes through here once. It classifies the envelope,
 * applies the lifecycle and capability rules, and hands each message to its actor: requests to a new
 * incoming-request actor, responses and progress to the waiting outgoing request, cancellations to the
 * running request they name.
 */
import type { AuthInfo } from '../core/auth.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { LocalError } from '../core/errors.ts';
import {
  type JsonObject,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
  classify,
  errorResponse,
  isRequestId,
  resultResponse,
} from '../core/jsonrpc.ts';
import { methodAvailable, methodRule, type Role } from '../core/protocol/methods.ts';
import { allowsBatches } from '../core/protocol/versions.ts';
import { readEnvelope } from '../core/protocol/modern.ts';
import { type FrameEnvelope, envelopeFor, lateEnvelopeOf } from '../core/frame-envelope.ts';
import type { ModernServing } from './modern/modern-serving.ts';
import type { ExchangeKey, FrameOrigin, InboundFrame } from '../core/transport.ts';
import { BatchResponses } from './batch.ts';
import { IncomingRequest, type ResponseRoute, methodNotFound, sendResponse, tooManyInFlight } from './incoming-request.ts';
import { cancelExchange, routeModernNotification, routeModernRequest } from './modern/modern-router.ts';
import { isProgressToken, progressTokenOf } from '../core/progress-token.ts';
import type { SessionContext } from './session-context.ts';

const direct = (exchange: ExchangeKey | undefined): ResponseRoute => ({ exchange, batch: undefined });

function peerRole(role: Role): Role {
  return role === 'server' ? 'client' : 'server';
}

/** Routes one admitted frame (the session's inbound stream admits only what a session that is not closed reads). */
export function routeFrame(session: SessionContext, frame: InboundFrame): void {
  switch (frame.type) {
    case 'message':
      // Media read each frame's envelope where they decode it; a frame from a medium that did not (or whose payload a
      // wrapping transport replaced) is read here, once.
      return routePayload(session, envelopeFor(frame.envelope, frame.payload), frame.payload, frame.exchange, undefined, frame.origin, frame.mirror);
    case 'malformed':
      session.diagnose({ type: 'malformed-frame', detail: frame.error.message });
      return reject(session, direct(frame.exchange), undefined, malformedError(frame.error));
    case 'exchange-closed':
      if (frame.reason !== undefined) session.diagnose({ type: 'stream-cut', detail: frame.reason.message });
      // Modern era: closing the response stream is how a client cancels. Legacy era: a closed stream is not a
      // cancellation (the peer cancels with a notification), unless the medium says leaving one cancels (NATS).
      if (session.admits('admit-modern')) cancelExchange(session, frame.exchange, new LocalError('RequestAborted', 'The client closed the request stream'));
      else if (frame.cancels === true) cancelExchange(session, frame.exchange, new LocalError('RequestAborted', 'The peer cancelled the request: The client is gone'));
      return;
    case 'undeliverable':
      return failUndeliverable(session, frame.payload, frame.error);
  }
}

function failUndeliverable(session: SessionContext, payload: unknown, error: LocalError): void {
  for (const message of Array.isArray(payload) ? payload : [payload]) {
    const classified = classify(message);
    if (classified.kind === 'request') session.outgoing.get(classified.message.id)?.fail(error);
    else session.diagnose({ type: classified.kind === 'response' ? 'dropped-response' : 'dropped-notification', detail: `undeliverable: ${error.message}` });
  }
}

function malformedError(error: LocalError): { code: number; message: string } {
  if (error.code === 'FrameTooLarge') return { code: ErrorCode.InvalidRequest, message: error.message };
  return { code: ErrorCode.ParseError, message: `Parse error: ${error.message}` };
}

function routePayload(
  session: SessionContext,
  envelope: FrameEnvelope,
  payload: unknown,
  exchange: ExchangeKey | undefined,
  batch: BatchResponses | undefined,
  origin?: FrameOrigin,
  mirror?: (lowercaseName: string) => string | undefined,
): void {
  const classified = envelope.classified;
  const route: ResponseRoute = batch === undefined ? direct(exchange) : { exchange, batch };
  switch (classified.kind) {
    case 'request': {
      const modern = session.modern;
      if (batch === undefined && modern !== undefined) {
        switch (eraOfFirstRequest(session, modern, classified.message, envelope)) {
          case 'modern':
            session.becomeModern();
            break;
          case 'undecided':
            // Valid in neither era: answered the modern way (its envelope error), deciding nothing.
            return routeModernRequest(session, modern, classified.message, route, origin, mirror, LEGACY_HINT);
          case 'unchanged':
            break;
        }
      }
      if (session.admits('admit-modern') && modern !== undefined) return routeModernRequest(session, modern, classified.message, route, origin, mirror);
      return routeRequest(session, classified.message, route, origin);
    }
    case 'notification':
      if (session.admits('admit-modern')) return routeModernNotification(session, classified.message, (params) => routeCancel(session, params));
      return routeNotification(session, classified.message);
    case 'response':
      return routeResponse(session, classified.message);
    case 'invalid': {
      session.diagnose({ type: 'invalid-message', detail: classified.reason });
      // Echo the id only for a broken request: a broken response's id names one of our own requests, and an error
      // carrying it would reach the peer as the answer to its own request with that id.
      const id = typeof payload === 'object' && payload !== null && 'method' in payload ? envelope.id : undefined;
      return reject(session, route, id, { code: ErrorCode.InvalidRequest, message: `Invalid request: ${classified.reason}` });
    }
    case 'batch':
      return routeBatch(session, envelope, classified.items, exchange, batch, origin);
  }
}

/**
 * A dual-era server connection takes the era of its first *valid* request: `initialize` opens a legacy session
 * (the handshake judges its params); a request whose `_meta` carries a valid 2026-07-28 envelope makes it modern.
 * Anything else gets its error and decides nothing, so a client that stumbles first (or a stray line) can still
 * open either era: it is refused the modern way (its envelope error, with a word for legacy clients), unless it
 * is a legacy client's `ping`, which may come before `initialize`. A modern-only server takes every first request
 * as modern (so a stray `initialize` is refused in that era).
 */
function eraOfFirstRequest(session: SessionContext, modern: ModernServing, message: JsonRpcRequest, envelope: FrameEnvelope): 'unchanged' | 'modern' | 'undecided' {
  if (session.role !== 'server' || !session.admits('admit-handshake')) return 'unchanged';
  if (!modern.acceptsLegacy) return 'modern';
  if (message.method === 'initialize') return 'unchanged';
  if (message.method === 'ping' && envelope.claimedRevision === undefined) return 'unchanged';
  return readEnvelope(message.params, modern.supported).ok ? 'modern' : 'undecided';
}

const LEGACY_HINT = 'or, for protocol revisions up to 2025-11-25, open a session with initialize first';

function routeBatch(session: SessionContext, envelope: FrameEnvelope, items: readonly unknown[], exchange: ExchangeKey | undefined, outer: BatchResponses | undefined, origin: FrameOrigin | undefined): void {
  const route = direct(exchange);
  if (outer !== undefined) return reject(session, { exchange, batch: outer }, undefined, { code: ErrorCode.InvalidRequest, message: 'Invalid request: batches cannot be nested' });
  if (!allowsBatches(session.revision)) {
    const why = session.revision === undefined ? 'before initialization (initialize must not be batched)' : `in revision ${session.revision}`;
    return reject(session, route, undefined, { code: ErrorCode.InvalidRequest, message: `Invalid request: JSON-RPC batches are not accepted ${why}` });
  }
  if (items.length === 0) return reject(session, route, undefined, { code: ErrorCode.InvalidRequest, message: 'Invalid request: empty batch' });
  if (items.length > session.limits.maxBatchSize) {
    return reject(session, route, undefined, { code: ErrorCode.InvalidRequest, message: `Invalid request: a batch may hold at most ${session.limits.maxBatchSize} messages (maxBatchSize)` });
  }
  const batch = new BatchResponses(session.writer, exchange);
  const entries = envelope.items ?? [];
  for (let i = 0; i < items.length; i++) {
    const entry = entries[i] ?? lateEnvelopeOf(items[i]);
    // Everything but notifications and responses gets exactly one answer (a result or an error).
    if (entry.kind !== 'notification' && entry.kind !== 'response') batch.expect();
    routePayload(session, entry, items[i], exchange, batch, origin);
  }
  batch.seal();
}

function reject(session: SessionContext, route: ResponseRoute, id: RequestId | undefined, error: { code: number; message: string; data?: unknown }): void {
  sendResponse(session, route, errorResponse(id, error));
}

function routeRequest(session: SessionContext, message: JsonRpcRequest, route: ResponseRoute, origin: FrameOrigin | undefined): void {
  const { id, method } = message;
  const params = message.params;
  // A session stays bound to the principal that opened it: a frame the medium attributes to another caller never
  // reaches it (the HTTP endpoint already answers such a request 404; this holds for every medium).
  const bound = session.principal;
  if (bound !== undefined && origin?.principal !== undefined && origin.principal !== bound) {
    return reject(session, route, id, { code: ErrorCode.InvalidRequest, message: 'Invalid request: this session belongs to another caller' });
  }
  if (session.incoming.has(id)) {
    // Answered without the id: an error carrying it would be taken as the answer to the running request.
    return reject(session, route, undefined, { code: ErrorCode.InvalidRequest, message: `Invalid request: id ${JSON.stringify(id)} is already in use by a running request` });
  }
  if (method === 'ping') {
    if (session.admits('admit-ping')) return sendResponse(session, route, resultResponse(id, {}));
    return reject(session, route, id, { code: ErrorCode.InvalidRequest, message: 'Invalid request: the session is shutting down' });
  }
  if (method === 'initialize' && session.role === 'server') {
    if (session.admits('admit-handshake')) {
      if (route.batch !== undefined) return reject(session, route, id, { code: ErrorCode.InvalidRequest, message: 'Invalid request: initialize must not be batched' });
      return session.handleInitialize(id, params, route.exchange);
    }
    return reject(session, route, id, { code: ErrorCode.InvalidRequest, message: 'Invalid request: the session is already initialized' });
  }
  if (!session.admits('admit-inbound')) {
    const why = session.admits('draining') ? 'the session is shutting down' : `the session is not initialized yet: only initialize and ping may come first, not ${method}`;
    return reject(session, route, id, { code: ErrorCode.InvalidRequest, message: `Invalid request: ${why}` });
  }
  const rule = methodRule(method);
  const revision = session.revision;
  if (rule !== undefined && revision !== undefined) {
    if (!methodAvailable(rule, revision, peerRole(session.role))) {
      return reject(session, route, id, methodNotFound(method, `not a ${peerRole(session.role)} request in revision ${revision}`));
    }
    const missing = rule.requires?.(session.ownCapabilities, params, revision);
    if (missing !== undefined) {
      return reject(session, route, id, methodNotFound(method, `this ${session.role} did not declare the capability "${missing}"`));
    }
  }
  const handler = session.handlers.requests.get(method);
  if (handler === undefined) return reject(session, route, id, methodNotFound(method));
  if (session.incoming.size >= session.limits.maxIncomingInFlight) {
    return reject(session, route, id, tooManyInFlight(session.limits.maxIncomingInFlight));
  }
  const token = progressTokenOf(params);
  if (token !== undefined) {
    if (!isProgressToken(token)) return reject(session, route, id, { code: ErrorCode.InvalidParams, message: 'Invalid params: _meta.progressToken must be a string or a number' });
    for (const running of session.incoming.values()) {
      if (running.progressToken === token) {
        return reject(session, route, id, { code: ErrorCode.InvalidParams, message: `Invalid params: progress token ${JSON.stringify(token)} is already used by an active request` });
      }
    }
  }
  new IncomingRequest(session, id, method, params, token, route, undefined, callerOf(session, origin)).run(handler);
}

function routeNotification(session: SessionContext, message: JsonRpcNotification): void {
  const { method, params } = message;
  switch (method) {
    case 'notifications/cancelled':
      return routeCancel(session, params);
    case 'notifications/progress':
      return routeProgress(session, params);
    case 'notifications/initialized':
      if (session.role === 'server') session.handleInitialized();
      return;
  }
  const rule = methodRule(method);
  const revision = session.revision;
  if (!session.admits('admit-inbound') && rule?.beforeHandshake !== true) {
    return session.diagnose({ type: 'dropped-notification', detail: `${method} arrived before the handshake completed` });
  }
  if (rule !== undefined && revision !== undefined && session.peerCapabilities !== undefined) {
    if (!methodAvailable(rule, revision, peerRole(session.role))) {
      return session.diagnose({ type: 'dropped-notification', detail: `${method} is not a ${peerRole(session.role)} notification in ${revision}` });
    }
    const missing = rule.requires?.(session.peerCapabilities, params, revision);
    if (missing !== undefined) {
      return session.diagnose({ type: 'dropped-notification', detail: `${method} needs the peer capability "${missing}", which it did not declare` });
    }
  }
  const handler = session.handlers.notifications.get(method);
  if (handler === undefined) return;
  try {
    handler(params, session.view);
  } catch (error) {
    session.diagnose({ type: 'handler-error', detail: `${method}: ${error instanceof Error ? error.message : String(error)}` });
  }
}

function routeCancel(session: SessionContext, params: JsonObject | undefined): void {
  const requestId = params?.['requestId'];
  // Unknown, finished or malformed cancellations are ignored, as the protocol asks. The handshake request is
  // never tracked as running, so it cannot be cancelled.
  if (!isRequestId(requestId)) return;
  const running = session.incoming.get(requestId);
  if (running === undefined) return;
  const reason = typeof params?.['reason'] === 'string' ? (params['reason'] as string) : 'cancelled by the requester';
  running.cancel(new LocalError('RequestAborted', `The peer cancelled the request: ${reason}`));
}

function routeProgress(session: SessionContext, params: JsonObject | undefined): void {
  const token = params?.['progressToken'];
  const pending = typeof token === 'number' ? session.outgoing.get(token) : undefined;
  if (params === undefined || pending === undefined) {
    // No request of ours is waiting for it, but the side may want it: a task's progress arrives on a listen
    // stream after the request that made the task was answered.
    const handler = params === undefined ? undefined : session.handlers.notifications.get('notifications/progress');
    if (handler !== undefined && params !== undefined) {
      try {
        return handler(params, session.view);
      } catch (error) {
        return session.diagnose({ type: 'handler-error', detail: `notifications/progress: ${error instanceof Error ? error.message : String(error)}` });
      }
    }
    return session.diagnose({ type: 'dropped-progress', detail: `progress for unknown token ${JSON.stringify(token)}` });
  }
  pending.onProgress(params);
}

function routeResponse(session: SessionContext, message: JsonRpcResponse): void {
  const id = message.id;
  const pending = id === undefined ? undefined : session.outgoing.get(id);
  if (pending === undefined) {
    // A late answer to a cancelled or timed-out request, or an id-less error about something we sent.
    const detail = 'error' in message ? `error ${message.error.code} ${message.error.message}` : 'result';
    return session.diagnose({ type: 'dropped-response', detail: `response (${detail}) for unknown id ${JSON.stringify(id)}` });
  }
  pending.onResponse(message as { result?: JsonObject; error?: { code: number; message: string; data?: unknown } });
}

/**
 * Who a legacy-era request comes from: the identity the medium verified for this frame (the token on its HTTP
 * POST, which may be a refreshed one), else the one the connection was opened with.
 */
function callerOf(session: SessionContext, origin: FrameOrigin | undefined): AuthInfo | undefined {
  return origin?.auth ?? session.auth;
}
