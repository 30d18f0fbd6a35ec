/**
 * One outbound message as a Streamable HTTP POST, and what its answer means.
 *
 * - 202: accepted, nothing to read. After `notifications/initialized` the standalone GET stream opens.
 * - 200 `application/json`: the message(s) in the body go to the session. A request the body does not answer
 *   fails at once. (A body answering a notification is tolerated: an id-less `{result: {}}` is dropped.)
 * - 200 `text/event-stream`: read as SSE, resumed when it ends early (resumption.ts).
 * - 404 on a known session id: the session expired; the caller renews it and retries (session-renewal.ts).
 * - Any other status: the requests in the POST fail at once with a `TransportFailed` error naming the status
 *   and the start of the body, unless the body is the server's own JSON-RPC error for that request (then the
 *   session gets the server's error). No error is ever forged in the server's name.
 */
import { utf8Text } from '../../../core/bytes.ts';
import { LocalError } from '../../../core/errors.ts';
import { type JsonRpcRequest, type RequestId, type WirePayload, isRequestId } from '../../../core/jsonrpc.ts';
import {
  type ClientContext,
  describePayload,
  isInitializeRequest,
  isInitializedNotification,
  isValidSessionId,
  requestHeaders,
  requestsIn,
} from './context.ts';
import { type HttpResponse, discardBody, headerValue, mediaType, parseJson, readBody, statusLine } from './http-exchange.ts';
import { createCursor, openStandaloneStream, readStream, stillOwed } from './resumption.ts';

export type PostOutcome =
  | { readonly type: 'handled' }
  /** 404 for the session id the POST carried. */
  | { readonly type: 'expired'; readonly sessionId: string }
  /** The first `initialize` was refused the way a 2024-11-05 server refuses it (400/404/405, no JSON-RPC). */
  | { readonly type: 'refused'; readonly status: string; readonly excerpt: string };

export interface PostOptions {
  /** This is the first `initialize` in `auto` mode: a refusal may mean a legacy server. */
  readonly probing: boolean;
  /** A 404 for our session id may be reported as `expired` (renewal allowed). */
  readonly mayExpire: boolean;
}

const LEGACY_REFUSALS = new Set([400, 404, 405]);
const handled: PostOutcome = Object.freeze({ type: 'handled' });

/** POSTs `payload`; never rejects (failures reach the session as undeliverable frames). */
export async function postMessage(context: ClientContext, payload: WirePayload, options: PostOptions): Promise<PostOutcome> {
  const requests = requestsIn(payload);
  const handshake = isInitializeRequest(payload);
  const sentWith = context.sessionId;
  let response: HttpResponse;
  try {
    response = await context.engine.exchange({
      method: 'POST',
      url: context.url,
      headers: requestHeaders(context, 'post', { handshake }),
      body: JSON.stringify(payload),
      lane: requests.length > 0 ? 'main' : 'control',
    });
  } catch (error) {
    if (!context.closed) context.undeliverable(payload, asLocalError(error));
    return handled;
  }
  if (context.closed) {
    discardBody(response);
    return handled;
  }
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) {
    if (handshake && !adoptSessionId(context, payload, response)) return handled;
    await readAnswer(context, payload, requests, response);
    if (isInitializedNotification(payload)) openStandaloneStream(context);
    return handled;
  }
  if (status === 404 && sentWith !== undefined && options.mayExpire) {
    discardBody(response);
    return { type: 'expired', sessionId: sentWith };
  }
  const body = await readBody(response, context.options.maxMessageBytes).catch(() => new Uint8Array(0));
  const parsed = parseJson(body);
  if (options.probing && LEGACY_REFUSALS.has(status) && !(parsed.ok && isJsonRpcError(parsed.value))) {
    return { type: 'refused', status: statusLine(response), excerpt: excerptOf(body) };
  }
  if (!context.closed) failWithStatus(context, payload, requests, response, parsed.ok ? parsed.value : undefined, body);
  return handled;
}

/** Takes the session id from the answer to `initialize`. False when it is invalid (the handshake then fails). */
function adoptSessionId(context: ClientContext, payload: WirePayload, response: HttpResponse): boolean {
  const sessionId = headerValue(response, 'mcp-session-id');
  if (sessionId === undefined) return true;
  if (isValidSessionId(sessionId)) {
    context.sessionId = sessionId;
    return true;
  }
  discardBody(response);
  context.undeliverable(payload, new LocalError('ProtocolViolation', 'The server sent an Mcp-Session-Id that is not visible ASCII (0x21-0x7E)'));
  return false;
}

async function readAnswer(context: ClientContext, payload: WirePayload, requests: readonly JsonRpcRequest[], response: HttpResponse): Promise<void> {
  const type = mediaType(response);
  if (type === 'text/event-stream') {
    const owed = stillOwed(context, requests);
    // Every request in it was cancelled while the answer was on its way: no answer comes, and the stream would stay open.
    if (owed.length === 0 && requests.length > 0) return void response.destroy();
    const cursor = createCursor(context, 'post', owed);
    // The response carries the stream: a cancellation lets it go (resumption.ts, release).
    cursor.request = response;
    return readStream(context, cursor, response);
  }
  if (type === 'application/json') return readJsonAnswer(context, requests, response);
  discardBody(response);
  if (requests.length === 0) return;
  if (response.statusCode === 202 && context.standalone !== undefined) return; // the answer may come on the GET stream
  const what = response.statusCode === 202 ? 'accepted it without an answer' : `answered with content type "${type}"`;
  context.undeliverable(payload, new LocalError('TransportFailed', `The server ${what} (${statusLine(response)}) to ${describePayload(payload)}`));
}

async function readJsonAnswer(context: ClientContext, requests: readonly JsonRpcRequest[], response: HttpResponse): Promise<void> {
  let body: Uint8Array;
  try {
    body = await readBody(response, context.options.maxMessageBytes);
  } catch (error) {
    return failEach(context, requests, asLocalError(error).message);
  }
  if (context.closed) return;
  if (body.byteLength === 0 && requests.length === 0) return;
  const parsed = parseJson(body);
  if (!parsed.ok) {
    if (requests.length === 0) return context.emit({ type: 'ignored', reason: `a malformed JSON body answering a notification or response` });
    return failEach(context, requests, `the JSON answer is malformed: ${excerptOf(body)}`);
  }
  const answered = new Set<RequestId>();
  for (const item of Array.isArray(parsed.value) ? parsed.value : [parsed.value]) {
    const id = responseId(item);
    if (id !== undefined) answered.add(id);
    context.deliver(item);
  }
  failEach(context, requests.filter((request) => !answered.has(request.id)), `the ${statusLine(response)} JSON answer carried no response to it`);
}

export function failWithStatus(context: ClientContext, payload: WirePayload, requests: readonly JsonRpcRequest[], response: HttpResponse, value: unknown, body: Uint8Array): void {
  // The server's own JSON-RPC errors for our requests are its answer: the session gets them as they are.
  const answered = new Set<RequestId>();
  if (isJsonRpcError(value)) {
    const ids = new Set(requests.map((request) => request.id));
    for (const item of Array.isArray(value) ? value : [value]) {
      const id = responseId(item);
      if (id === undefined || !ids.has(id)) continue;
      answered.add(id);
      context.deliver(item);
    }
  }
  const why = `${statusLine(response)}${excerptOf(body) === '' ? '' : `: ${excerptOf(body)}`}`;
  if (requests.length === 0) {
    context.undeliverable(payload, new LocalError('TransportFailed', `The server refused ${describePayload(payload)} with ${why}`));
    return;
  }
  for (const request of requests) {
    if (answered.has(request.id)) continue;
    context.undeliverable(request, new LocalError('TransportFailed', `The server answered ${describePayload(request)} with ${why}`));
  }
}

function failEach(context: ClientContext, requests: readonly JsonRpcRequest[], why: string): void {
  for (const request of requests) {
    context.undeliverable(request, new LocalError('TransportFailed', `No response to ${describePayload(request)}: ${why}`));
  }
}

function responseId(item: unknown): RequestId | undefined {
  if (typeof item !== 'object' || item === null || 'method' in item || !('id' in item)) return undefined;
  const id = item.id;
  return isRequestId(id) ? id : undefined;
}

/** A JSON-RPC error response (or a batch holding one): what a Streamable server puts in a 4xx body. */
export function isJsonRpcError(value: unknown): boolean {
  const items: readonly unknown[] = Array.isArray(value) ? value : [value];
  return items.some((item) => typeof item === 'object' && item !== null && 'jsonrpc' in item && item.jsonrpc === '2.0' && 'error' in item);
}

function excerptOf(body: Uint8Array, maxChars = 200): string {
  const line = utf8Text(body.subarray(0, maxChars * 4)).replace(/\s+/g, ' ').trim();
  return line.length > maxChars ? `${line.slice(0, maxChars)}...` : line;
}

function asLocalError(error: unknown): LocalError {
  return error instanceof LocalError ? error : new LocalError('TransportFailed', 'The HTTP request failed', { cause: error });
}
