/**
 * What the binding checks on every request before a session sees it, and how it answers a request it refuses
 * itself (to the request's reply subject, in the codec the request came in).
 */
import type { Msg, NatsConnection } from '@nats-io/nats-core';
import type { Codec } from '../../../core/codecs/codec.ts';
import { ErrorCode } from '../../../core/error-codes.ts';
import { LocalError } from '../../../core/errors.ts';
import { type JsonObject, type RequestId, errorResponse, isRequestId } from '../../../core/jsonrpc.ts';
import { codecOfMessage } from '../body-codec.ts';
import { type HeaderReader, type ReceivedHeaders } from '../headers.ts';
import { methodTokens } from '../subjects.ts';
import type { RequestStats } from '../announce/request-stats.ts';

export type DecodedBody =
  | { readonly ok: true; readonly value: unknown; readonly codec: Codec }
  | { readonly ok: false; readonly error: LocalError; readonly codec: Codec };

/** Decodes a message's body in the codec its headers name (`headers`: the message's, read once by the caller). */
export function decodeBody(msg: Msg, maxBytes: number, headers: HeaderReader | undefined = msg.headers): DecodedBody {
  const codec = codecOfMessage(headers);
  try {
    return { ok: true, value: codec.decode(msg.data, maxBytes), codec };
  } catch (error) {
    return { ok: false, error: error instanceof LocalError ? error : new LocalError('DecodeFailed', String(error), { cause: error }), codec };
  }
}

/** What a refusal made on behalf of a serving process needs: its connection, and its stats to count the refusal in. */
export interface RefusingHost {
  readonly connection: NatsConnection;
  readonly stats: RequestStats;
  readonly now: () => number;
}

/**
 * Refuses a request a serving process received, before any session took it, and counts it in the process's stats
 * (a request answered at once, with an error: `$SRV.STATS` reports it).
 */
export function refuseRequest(host: RefusingHost, reply: string, codec: Codec, id: RequestId | undefined, code: number, message: string): void {
  const now = host.now();
  host.stats.answered(now, now, message);
  refuse(host.connection, reply, codec, id, code, message);
}

export function refuse(connection: NatsConnection, reply: string, codec: Codec, id: RequestId | undefined, code: number, message: string, data?: JsonObject): void {
  try {
    connection.publish(reply, codec.encode(errorResponse(id, data === undefined ? { code, message } : { code, message, data })));
  } catch {
    // The NATS connection is closed; the client's own timeout ends its wait.
  }
}

/** The JSON-RPC error of an undecodable body. */
export function malformedRefusal(error: LocalError): { readonly code: number; readonly message: string } {
  return error.code === 'FrameTooLarge' ? { code: ErrorCode.InvalidRequest, message: error.message } : { code: ErrorCode.ParseError, message: `Parse error: ${error.message}` };
}

export type CheckedRequest = { readonly id: RequestId; readonly method: string; readonly params?: JsonObject; readonly jsonrpc: '2.0' };

/**
 * A request on a call subject: one JSON-RPC request (never a batch) whose method is the subject's and whose
 * mirrored headers agree with the body. Returns the refusal otherwise.
 */
export function checkCall(value: unknown, subjectMethod: string, headers: ReceivedHeaders, modern: boolean): { readonly request: CheckedRequest } | { readonly code: number; readonly message: string; readonly id: RequestId | undefined } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { code: ErrorCode.InvalidRequest, message: 'Invalid request: a NATS message carries exactly one JSON-RPC request object', id: undefined };
  }
  const message = value as Record<string, unknown>;
  const id = isRequestId(message['id']) ? message['id'] : undefined;
  const method = message['method'];
  if (message['jsonrpc'] !== '2.0' || typeof method !== 'string' || id === undefined) {
    // The id is echoed only for a broken request: a response's id names a request of the client's own, and an
    // error carrying it reads as that request's answer (the session's router keeps the same rule).
    return { code: ErrorCode.InvalidRequest, message: 'Invalid request: the call subjects take JSON-RPC requests (jsonrpc "2.0", a method, an id)', id: 'method' in message ? id : undefined };
  }
  const params = message['params'];
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    return { code: ErrorCode.InvalidRequest, message: 'Invalid request: "params" must be an object', id };
  }
  if (methodTokens(method) !== subjectMethod) {
    return { code: ErrorCode.HeaderMismatch, message: `Header mismatch: the subject names method ${JSON.stringify(subjectMethod.replaceAll('.', '/'))} but the body has ${JSON.stringify(method)}`, id };
  }
  // Checked once per header set and request shape: the reader remembers its last answer (see header-blocks.ts).
  const problem = headers.checkStandard(params === undefined ? { method } : { method, params: params as JsonObject });
  // MCP-Protocol-Version belongs to the modern era (a legacy initialize names its version in the body), and it
  // mirrors the envelope: a body that names no version gets the session's envelope error instead.
  const missingVersion = problem?.reason === 'missing' && problem.header === 'MCP-Protocol-Version';
  if (problem !== undefined && !(missingVersion && (!modern || !namesVersion(params)))) {
    return { code: ErrorCode.HeaderMismatch, message: `Header mismatch: ${problem.message}`, id };
  }
  return { request: message as CheckedRequest };
}

function namesVersion(params: unknown): boolean {
  const meta = typeof params === 'object' && params !== null ? (params as { _meta?: unknown })._meta : undefined;
  return typeof meta === 'object' && meta !== null && typeof (meta as Record<string, unknown>)['io.modelcontextprotocol/protocolVersion'] === 'string';
}
