/**
 * The HTTP answers the endpoint gives on its own (not the session's): status codes with an id-less JSON-RPC
 * error body, which the spec allows for every refusal and clients can show.
 */
import { ErrorCode } from '../../../core/error-codes.ts';
import { HEADER, MEDIA_TYPE } from '../shared/headers.ts';
import type { HeaderMap, HttpResponder } from './http-exchange.ts';

/** Headers of every event-stream response. */
export const SSE_HEADERS: HeaderMap = Object.freeze({
  [HEADER.contentType]: MEDIA_TYPE.eventStream,
  [HEADER.cacheControl]: 'no-cache, no-transform',
  [HEADER.accelBuffering]: 'no',
});

export const JSON_HEADERS: HeaderMap = Object.freeze({ [HEADER.contentType]: MEDIA_TYPE.json });

/**
 * Refuses a request before any session took it: `status` with `{"jsonrpc":"2.0","error":{code,message}}`, and the
 * refusal counted (`HttpResponder.refused`). The code is -32700 for bodies that are not JSON, -32603 for 5xx,
 * -32600 otherwise.
 */
export function refuse(res: HttpResponder, status: number, message: string, headers: HeaderMap = {}, code?: number): void {
  const errorCode = code ?? (status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest);
  answerError(res, status, message, headers, errorCode);
  res.refused?.(status, message, errorCode);
}

/**
 * The same answer, not counted as a refusal: for a request a session had taken (its connection closing), or one the
 * acceptor refused in `accept` and counted itself.
 */
export function answerError(res: HttpResponder, status: number, message: string, headers: HeaderMap = {}, code?: number): void {
  const errorCode = code ?? (status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest);
  res.respond(status, { ...JSON_HEADERS, ...headers }, JSON.stringify({ jsonrpc: '2.0', error: { code: errorCode, message } }));
}

export function accepted(res: HttpResponder, headers: HeaderMap = {}): void {
  res.respond(202, headers);
}

export function methodNotAllowed(res: HttpResponder, allow: string, why: string): void {
  refuse(res, 405, `Method not allowed: ${why}`, { [HEADER.allow]: allow });
}
