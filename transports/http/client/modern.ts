/**
 * The modern era (2026-07-28) on the client side of Streamable HTTP, decided per message.
 *
 * A request is modern when its `params._meta` names a protocol version that is not a legacy one (as the server
 * decides too, see the server's modern-post.ts). Such a request is a world of its own:
 * - one POST, without `Mcp-Session-Id`, carrying the standard headers mirrored from its body
 *   (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) and the `Mcp-Param-*` headers the session attached to the
 *   frame; no handshake to wait for, no session renewal, no HTTP+SSE fallback, no standalone GET stream;
 * - its answer is JSON or an SSE stream. The stream is never resumed (the era has no event ids): when it ends
 *   before the response, the request is lost and fails at once, to be sent again by whoever wants it;
 * - a 4xx carrying the server's JSON-RPC error for the request is that error (-32020, -32022, -32601...); any
 *   other status fails it with a `TransportFailed` error naming the status, never a forged server error;
 * - it is cancelled by closing its connection: the session's `notifications/cancelled` for it is not POSTed, it
 *   aborts the exchange instead (the server sees the client leave). A `subscriptions/listen` stream lives until
 *   then, however quiet: nothing here times a stream out, and keep-alive comments are skipped by the parser.
 */
import { LocalError } from '../../../core/errors.ts';
import { type JsonRpcRequest, type RequestId, type WirePayload, isRequestId } from '../../../core/jsonrpc.ts';
import { PARAM_HEADER_PREFIX, PROTOCOL_VERSION_META_KEY, isHeaderToken, standardHeaders } from '../../../core/protocol/header-mirror.ts';
import { isJsonObject } from '../../../core/protocol/guards.ts';
import { isLegacyRevision } from '../../../core/protocol/versions.ts';
import { type ClientContext, type ModernFlight, describePayload } from './context.ts';
import { type HttpHeaders, type HttpResponse, mediaType, parseJson, readBody, statusLine } from './http-exchange.ts';
import { failWithStatus } from './post.ts';
import { SseParser } from './sse-parser.ts';

/** Headers the transport alone sets on a modern POST: the caller's own headers of these names are dropped. */
const OWNED_HEADERS = new Set([
  'content-type',
  'content-length',
  'accept',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'last-event-id',
]);
const PARAM_PREFIX = PARAM_HEADER_PREFIX.toLowerCase();
/** An encoded header value: visible ASCII, inner spaces allowed (the mirror module encodes anything else). */
const HEADER_VALUE = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;

/**
 * Whether `payload` is a modern request: one request (never `initialize`) whose `params._meta` carries a protocol
 * version that is not one of the legacy revisions.
 */
export function isModernRequest(payload: WirePayload): payload is JsonRpcRequest {
  if (Array.isArray(payload) || !('method' in payload) || !('id' in payload) || payload.method === 'initialize') return false;
  const meta = payload.params?.['_meta'];
  if (!isJsonObject(meta) || !Object.hasOwn(meta, PROTOCOL_VERSION_META_KEY)) return false;
  const version = meta[PROTOCOL_VERSION_META_KEY];
  return version !== undefined && !isLegacyRevision(version);
}

/** The request id a lone `notifications/cancelled` names, if it names one. */
export function cancelledRequestId(payload: WirePayload): RequestId | undefined {
  if (Array.isArray(payload) || !('method' in payload) || 'id' in payload || payload.method !== 'notifications/cancelled') return undefined;
  const requestId = payload.params?.['requestId'];
  return isRequestId(requestId) ? requestId : undefined;
}

/** Cancels a flight: its HTTP exchange is aborted (before or after the response head, it does not matter). */
export function abortFlight(context: ClientContext, flight: ModernFlight): void {
  flight.aborted = true;
  if (flight.http !== undefined) context.engine.abort(flight.http);
}

/**
 * The headers of one modern POST: the caller's own (minus those the transport owns), the mirrored tool
 * parameters, then the standard headers from the body. Throws a `TransportFailed` error for a mirror entry that
 * is not an `Mcp-Param-*` header with an encoded value.
 */
export function modernHeaders(context: ClientContext, request: JsonRpcRequest, mirror: Readonly<Record<string, string>> | undefined): HttpHeaders {
  const headers: HttpHeaders = {};
  for (const [name, value] of Object.entries(context.options.headers())) {
    const lower = name.toLowerCase();
    if (!OWNED_HEADERS.has(lower) && !lower.startsWith(PARAM_PREFIX)) headers[name] = value;
  }
  if (mirror !== undefined) {
    for (const [name, value] of Object.entries(mirror)) {
      if (!name.toLowerCase().startsWith(PARAM_PREFIX) || name.length === PARAM_PREFIX.length || !isHeaderToken(name)) {
        throw new LocalError('TransportFailed', `Cannot send ${describePayload(request)}: ${JSON.stringify(name)} is not an ${PARAM_HEADER_PREFIX}* header name`);
      }
      if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
        throw new LocalError('TransportFailed', `Cannot send ${describePayload(request)}: the ${name} value is not an encoded header value`);
      }
      headers[name] = value;
    }
  }
  Object.assign(headers, standardHeaders(request));
  headers['content-type'] = 'application/json';
  headers['accept'] = 'application/json, text/event-stream';
  return headers;
}

/**
 * POSTs one modern request and hands its answer to the session. Settles once the answer is known to be JSON
 * (after reading it) or a stream (at its head: the stream is then read on its own); never rejects.
 */
export async function postModern(context: ClientContext, flight: ModernFlight, mirror: Readonly<Record<string, string>> | undefined): Promise<void> {
  const { request } = flight;
  let response: HttpResponse;
  try {
    const headers = modernHeaders(context, request, mirror);
    response = await context.engine.exchange(
      { method: 'POST', url: context.url, headers, body: JSON.stringify(request), lane: 'main' },
      (started) => {
        flight.http = started;
        if (flight.aborted) context.engine.abort(started);
      },
    );
  } catch (error) {
    landed(context, flight);
    if (!silenced(context, flight)) context.undeliverable(request, asLocalError(error));
    return;
  }
  if (silenced(context, flight)) {
    if (flight.http !== undefined) context.engine.abort(flight.http);
    return landed(context, flight);
  }
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) {
    const type = mediaType(response);
    if (type === 'text/event-stream') return readModernStream(context, flight, response);
    if (type === 'application/json') return readModernJson(context, flight, response);
  }
  const body = await readBody(response, context.options.maxMessageBytes).catch(() => new Uint8Array(0));
  landed(context, flight);
  if (silenced(context, flight)) return;
  if (status >= 200 && status < 300) {
    const what = body.byteLength === 0 ? 'no response' : `content type "${mediaType(response)}"`;
    return context.undeliverable(request, new LocalError('TransportFailed', `The server answered ${describePayload(request)} with ${statusLine(response)} and ${what}`));
  }
  // The server's own JSON-RPC error for the request is its answer (400 -32020/-32021/-32022/-32602, 404 -32601).
  const parsed = parseJson(body);
  failWithStatus(context, request, [request], response, parsed.ok ? parsed.value : undefined, body);
}

async function readModernJson(context: ClientContext, flight: ModernFlight, response: HttpResponse): Promise<void> {
  const { request } = flight;
  let body: Uint8Array;
  try {
    body = await readBody(response, context.options.maxMessageBytes);
  } catch (error) {
    landed(context, flight);
    if (!silenced(context, flight)) lose(context, request, asLocalError(error).message);
    return;
  }
  landed(context, flight);
  if (silenced(context, flight)) return;
  const parsed = parseJson(body);
  if (!parsed.ok) return lose(context, request, `the ${statusLine(response)} JSON answer is malformed`);
  let answered = false;
  for (const item of Array.isArray(parsed.value) ? (parsed.value as unknown[]) : [parsed.value]) {
    if (answers(item, request.id)) answered = true;
    context.deliver(item);
  }
  if (!answered) lose(context, request, `the ${statusLine(response)} JSON answer carried no response to it`);
}

/** Reads a modern SSE answer to its end. No event ids, no resumption: an early end loses the request. */
function readModernStream(context: ClientContext, flight: ModernFlight, response: HttpResponse): void {
  let answered = false;
  const parser = new SseParser(
    {
      event: (event) => {
        if (event.type !== 'message' || silenced(context, flight)) return;
        const decoded = parseJson(event.data);
        if (!decoded.ok) return context.malformed(decoded.error);
        if (answers(decoded.value, flight.request.id)) answered = true;
        context.deliver(decoded.value);
      },
      oversized: (error) => context.malformed(error),
    },
    context.options.maxMessageBytes,
  );
  response.on('data', (chunk) => parser.push(chunk));
  // A reset or aborted stream ends in 'close' like a finished one; which it was is told by the response alone.
  response.on('error', () => undefined);
  response.once('close', () => {
    parser.end();
    landed(context, flight);
    if (answered || silenced(context, flight)) return;
    const how = response.complete ? 'the server ended the SSE stream' : 'the SSE stream broke';
    lose(context, flight.request, `${how} before the response (2026-07-28 streams cannot be resumed): the request is lost and must be retried`);
  });
}

/** The flight's exchange is over: a later cancellation of its id has nothing to abort. */
function landed(context: ClientContext, flight: ModernFlight): void {
  if (context.flights.get(flight.request.id) === flight) context.flights.delete(flight.request.id);
}

function silenced(context: ClientContext, flight: ModernFlight): boolean {
  return flight.aborted || context.closed;
}

function lose(context: ClientContext, request: JsonRpcRequest, why: string): void {
  context.undeliverable(request, new LocalError('TransportFailed', `No response to ${describePayload(request)}: ${why}`));
}

/** Whether `item` is the response (result or error) to request `id`. */
function answers(item: unknown, id: RequestId): boolean {
  return isJsonObject(item) && !('method' in item) && ('result' in item || 'error' in item) && item['id'] === id;
}

function asLocalError(error: unknown): LocalError {
  return error instanceof LocalError ? error : new LocalError('TransportFailed', 'The HTTP request failed', { cause: error });
}
