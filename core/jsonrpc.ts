/**
 * JSON-RPC 2.0 envelopes as MCP uses them, with a cheap hand-written envelope check.
 *
 * The check looks only at the envelope (jsonrpc, id, method, result/error shape); params and results are
 * validated later by whoever owns the method. It runs on every inbound message, so it allocates nothing on
 * the success path beyond the returned classification.
 */

/** A request id: a string or an integer, never null. */
export type RequestId = string | number;

export type JsonObject = { readonly [key: string]: unknown };

export interface JsonRpcRequest {
  readonly jsonrpc: '2.0';
  readonly id: RequestId;
  readonly method: string;
  readonly params?: JsonObject;
}

export interface JsonRpcNotification {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params?: JsonObject;
}

export interface JsonRpcResultResponse {
  readonly jsonrpc: '2.0';
  readonly id: RequestId;
  readonly result: JsonObject;
}

export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export interface JsonRpcErrorResponse {
  readonly jsonrpc: '2.0';
  /** Absent only when the id of the offending message could not be read. */
  readonly id?: RequestId;
  readonly error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** What a sender may put on the wire in one frame: a message, or (2025-03-26 only) a batch of them. */
export type WirePayload = JsonRpcMessage | readonly JsonRpcMessage[];

/** The outcome of classifying one decoded value. */
export type Classified =
  | { readonly kind: 'request'; readonly message: JsonRpcRequest }
  | { readonly kind: 'notification'; readonly message: JsonRpcNotification }
  | { readonly kind: 'response'; readonly message: JsonRpcResponse }
  | { readonly kind: 'batch'; readonly items: readonly unknown[] }
  | { readonly kind: 'invalid'; readonly id: RequestId | undefined; readonly reason: string };

export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

/**
 * A JSON object: not null, not an array. The one "is this an object" rule of the library; it lives here beside
 * `JsonObject`, at the bottom of core, and core/protocol/guards.ts hands it on.
 */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads an id out of an invalid message when it is a usable one, so the error can be correlated. */
function salvageId(value: Record<string, unknown>): RequestId | undefined {
  return isRequestId(value['id']) ? value['id'] : undefined;
}

/**
 * Classifies a decoded JSON value as a JSON-RPC message. Never throws.
 * Rules: `jsonrpc` is exactly "2.0"; an id is a string or integer (a `null` id is invalid in MCP);
 * `params` if present is an object; a response has exactly one of `result` (object) and `error`
 * (integer `code`, string `message`).
 */
export function classify(value: unknown): Classified {
  if (Array.isArray(value)) return { kind: 'batch', items: value };
  if (!isJsonObject(value)) {
    return { kind: 'invalid', id: undefined, reason: 'a JSON-RPC message must be a JSON object' };
  }
  if (value['jsonrpc'] !== '2.0') {
    return { kind: 'invalid', id: salvageId(value), reason: 'the "jsonrpc" member must be exactly "2.0"' };
  }
  const method = value['method'];
  const hasId = 'id' in value;
  const id = value['id'];
  if (method !== undefined) {
    if (typeof method !== 'string' || method.length === 0) {
      return { kind: 'invalid', id: salvageId(value), reason: 'the "method" member must be a non-empty string' };
    }
    const params = value['params'];
    if (params !== undefined && !isJsonObject(params)) {
      return { kind: 'invalid', id: salvageId(value), reason: 'the "params" member must be an object' };
    }
    if (!hasId) return { kind: 'notification', message: value as unknown as JsonRpcNotification };
    if (!isRequestId(id)) {
      return { kind: 'invalid', id: undefined, reason: 'a request id must be a string or an integer (never null)' };
    }
    return { kind: 'request', message: value as unknown as JsonRpcRequest };
  }
  const hasResult = 'result' in value;
  const hasError = 'error' in value;
  if (hasResult === hasError) {
    return {
      kind: 'invalid',
      id: salvageId(value),
      reason: hasResult ? 'a response must not carry both "result" and "error"' : 'a message needs "method", "result" or "error"',
    };
  }
  if (hasResult) {
    if (!isRequestId(id)) return { kind: 'invalid', id: undefined, reason: 'a result response needs a string or integer id' };
    if (!isJsonObject(value['result'])) return { kind: 'invalid', id, reason: 'the "result" member must be an object' };
    return { kind: 'response', message: value as unknown as JsonRpcResultResponse };
  }
  const error = value['error'];
  if (!isJsonObject(error) || !Number.isInteger(error['code']) || typeof error['message'] !== 'string') {
    return { kind: 'invalid', id: salvageId(value), reason: 'an error needs an integer "code" and a string "message"' };
  }
  if (hasId && !isRequestId(id)) {
    return { kind: 'invalid', id: undefined, reason: 'an error response id must be a string or an integer' };
  }
  return { kind: 'response', message: value as unknown as JsonRpcErrorResponse };
}

/**
 * Whether an outbound payload answers the peer (a response, or a batch of them) rather than saying something of
 * its own: writers bound what a side says on its own, and never drop an answer for queue space.
 */
export function isAnswerPayload(payload: WirePayload): boolean {
  return Array.isArray(payload) || !('method' in payload);
}

export function isErrorResponse(message: JsonRpcResponse): message is JsonRpcErrorResponse {
  return 'error' in message;
}

export function request(id: RequestId, method: string, params?: JsonObject): JsonRpcRequest {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

export function notification(method: string, params?: JsonObject): JsonRpcNotification {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

export function resultResponse(id: RequestId, result: JsonObject): JsonRpcResultResponse {
  return { jsonrpc: '2.0', id, result };
}

export function errorResponse(id: RequestId | undefined, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  return id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}
