/**
 * The two error families.
 *
 * - {@link WireError}: a JSON-RPC error with a numeric code. It came from the peer, or it is meant to be sent
 *   to the peer. Serialisable.
 * - {@link LocalError}: something that happened on this side (timeout, abort, closed connection, a limit).
 *   It has a string code and is never sent as is; {@link toWireError} decides what, if anything, a peer sees.
 *
 * Both carry `cause` so a failure can be traced to its origin.
 */
import { ErrorCode } from './error-codes.ts';
import type { JsonRpcErrorObject } from './jsonrpc.ts';

export class WireError extends Error {
  readonly _tag = 'WireError' as const;
  readonly code: number;
  readonly data: unknown;
  /**
   * `peer`: the peer answered one of our requests with this error. `local`: raised here, to be sent. A handler
   * that lets a peer's error escape should not have it passed back as if it were its own answer.
   */
  readonly origin: 'peer' | 'local';

  constructor(code: number, message: string, options?: { readonly data?: unknown; readonly cause?: unknown; readonly origin?: 'peer' | 'local' }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WireError';
    this.code = code;
    this.data = options?.data;
    this.origin = options?.origin ?? 'local';
  }

  /** An error the peer sent. */
  static fromObject(error: JsonRpcErrorObject): WireError {
    return new WireError(error.code, error.message, { data: error.data, origin: 'peer' });
  }

  toObject(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export type LocalErrorCode =
  /** The request got no answer within its timeout. */
  | 'RequestTimeout'
  /** The caller stopped waiting (unsubscribed or aborted). Never reported as a timeout. */
  | 'RequestAborted'
  /** The connection or session closed while the request was in flight, or before it was sent. */
  | 'ConnectionClosed'
  /** The session is not in a state that allows this (for example a request before the handshake). */
  | 'LifecycleViolation'
  /** The peer did not negotiate the capability this request needs. */
  | 'CapabilityNotNegotiated'
  /** The method does not exist in the negotiated protocol revision. */
  | 'MethodNotInRevision'
  /** A bounded queue is full. */
  | 'QueueFull'
  /** The peer stopped reading: its outbound queue overflowed or stayed stalled too long (the session is dropped). */
  | 'SlowConsumer'
  /** A session host holds its maximum of sessions and refused another. */
  | 'SessionLimit'
  /** A session saw no traffic for its idle timeout and was closed. */
  | 'IdleTimeout'
  /** An inbound frame is larger than the limit. */
  | 'FrameTooLarge'
  /** An inbound frame could not be decoded. */
  | 'DecodeFailed'
  /** The peer sent something that breaks the protocol (a malformed response, a bad progress value). */
  | 'ProtocolViolation'
  /** Version negotiation failed: no revision both sides speak. */
  | 'UnsupportedVersion'
  /** The keepalive saw no answer to its pings. */
  | 'PeerUnresponsive'
  /** The transport failed to deliver. */
  | 'TransportFailed'
  /** The server refused the request (HTTP 401, or 403 with a challenge) and authorization could not cure it. */
  | 'Unauthorized';

export class LocalError extends Error {
  readonly _tag = 'LocalError' as const;
  readonly code: LocalErrorCode;

  constructor(code: LocalErrorCode, message: string, options?: { readonly cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LocalError';
    this.code = code;
  }
}

export function isWireError(error: unknown): error is WireError {
  return error instanceof WireError;
}

export function isLocalError(error: unknown, code?: LocalErrorCode): error is LocalError {
  return error instanceof LocalError && (code === undefined || error.code === code);
}

/**
 * The one place that decides what a peer sees when a handler fails.
 * A {@link WireError} crosses as is. Anything else becomes an internal error carrying the message only
 * (no stack, no cause chain): the peer is not trusted with our internals.
 */
export function toWireError(error: unknown): JsonRpcErrorObject {
  if (error instanceof WireError) return error.toObject();
  const message = error instanceof Error && error.message.length > 0 ? error.message : 'Internal error';
  return { code: ErrorCode.InternalError, message };
}

/**
 * The 2025-11-25 error a server throws from a handler when the request cannot proceed until the user has
 * completed one or more URL-mode elicitations (-32042, with the elicitations in `data`).
 */
export function urlElicitationRequired(
  elicitations: readonly { readonly mode: 'url'; readonly message: string; readonly url: string; readonly elicitationId: string }[],
  message = 'This request needs the user to complete an elicitation first',
): WireError {
  return new WireError(ErrorCode.UrlElicitationRequired, message, { data: { elicitations } });
}
