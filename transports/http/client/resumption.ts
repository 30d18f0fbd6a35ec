/**
 * Reading SSE streams and resuming them.
 *
 * A stream a POST opened owes the responses to the requests in that POST. If it ends before they all arrived
 * (the server closed it on purpose after a priming event, or the connection dropped), the client waits the
 * server's `retry:` milliseconds (exactly, the first time; `defaultRetryMs` when the server sent none), then
 * reconnects with a GET carrying `Last-Event-ID`, and reads on. Reconnections that bring no event back off by
 * `growFactor` up to `maxDelayMs`; after `maxAttempts` of them the requests still owed fail at once with a
 * `TransportFailed` error. A stream without any event id cannot be resumed: its requests fail when it ends.
 *
 * The standalone GET stream (opened after the handshake) owes nothing; it is reconnected the same way when it
 * ends, and given up quietly when the server refuses it (400, 404, 405).
 */
import { LocalError } from '../../../core/errors.ts';
import { nextTurn } from '../../../core/next-turn.ts';
import type { JsonRpcRequest, RequestId } from '../../../core/jsonrpc.ts';
import { type ClientContext, type StreamCursor, requestHeaders } from './context.ts';
import { type HttpResponse, discardBody, mediaType, parseJson, statusLine } from './http-exchange.ts';
import { type SseEvent, SseParser, type SseSink } from './sse-parser.ts';

const REFUSALS = new Set([400, 404, 405]);

export function createCursor(context: ClientContext, kind: StreamCursor['kind'], requests: readonly JsonRpcRequest[]): StreamCursor {
  const owed = new Map<RequestId, JsonRpcRequest>();
  for (const request of requests) owed.set(request.id, request);
  const cursor: StreamCursor = {
    kind,
    owed,
    lastEventId: undefined,
    retryMs: undefined,
    attempts: 0,
    request: undefined,
    timer: undefined,
    opened: false,
    done: false,
  };
  context.cursors.add(cursor);
  for (const request of requests) context.owed.set(request.id, cursor);
  return cursor;
}

/** Where the events of a cursor's stream go: the session. */
class CursorEvents implements SseSink {
  constructor(private readonly context: ClientContext, private readonly cursor: StreamCursor) {}

  event(event: SseEvent): void {
    this.cursor.attempts = 0;
    const context = this.context;
    if (context.closed || event.type !== 'message') return;
    const decoded = parseJson(event.data);
    if (decoded.ok) context.deliver(decoded.value);
    else context.malformed(decoded.error);
  }

  oversized(error: LocalError): void {
    this.context.malformed(error);
  }
}

/** Reads one SSE response of `cursor` to its end, delivering every message event to the session. */
export function readStream(context: ClientContext, cursor: StreamCursor, response: HttpResponse): void {
  const parser = new SseParser(new CursorEvents(context, cursor), context.options.maxMessageBytes, cursor.lastEventId);
  response.on('data', (chunk) => {
    parser.push(chunk);
    if (parser.lastEventId !== cursor.lastEventId) {
      cursor.lastEventId = parser.lastEventId;
      cursor.attempts = 0; // a priming event is progress too
    }
    if (parser.retryMs !== undefined) cursor.retryMs = parser.retryMs;
  });
  // An aborted or reset stream ends in 'close' like a finished one; the error itself says nothing more.
  response.on('error', () => undefined);
  response.once('close', () => {
    parser.end();
    cursor.request = undefined;
    streamEnded(context, cursor);
  });
}

/**
 * A response for `id` arrived (on whatever stream), or the session cancelled it: its stream no longer owes it.
 */
export function release(context: ClientContext, id: RequestId, cancelled = false): void {
  const cursor = context.owed.get(id);
  if (cursor === undefined) {
    if (cancelled) remember(context.cancelledEarly, id);
    return;
  }
  context.owed.delete(id);
  cursor.owed.delete(id);
  // A resumed stream has served its purpose once it owes nothing. A POST's own stream is left for the server to
  // close after its answer (closing it ourselves would cost the keep-alive socket); a cancelled request gets no
  // answer, and servers keep its stream open (closing it would send other clients back to resume it): let it go.
  if (cursor.owed.size === 0 && cursor.kind === 'post' && (cancelled || cursor.timer !== undefined || cursor.opened)) {
    nextTurn(() => stop(context, cursor));
  }
}

/** Cancelled ids kept for a stream that may still come for them: the last few (ids are not reused). */
const MAX_CANCELLED_EARLY = 16;

function remember(ids: Set<RequestId>, id: RequestId): void {
  ids.add(id);
  if (ids.size > MAX_CANCELLED_EARLY) ids.delete(ids.values().next().value as RequestId);
}

/** The requests of `requests` still wanted: not cancelled before their POST's answer arrived. */
export function stillOwed(context: ClientContext, requests: readonly JsonRpcRequest[]): readonly JsonRpcRequest[] {
  const early = context.cancelledEarly;
  return early.size === 0 ? requests : requests.filter((request) => !early.delete(request.id));
}

/** Ends a cursor: no reconnection, its HTTP request (if any) aborted. */
export function stop(context: ClientContext, cursor: StreamCursor): void {
  if (cursor.done) return;
  cursor.done = true;
  cursor.timer?.cancel();
  cursor.timer = undefined;
  cursor.request?.destroy();
  cursor.request = undefined;
  context.cursors.delete(cursor);
  for (const id of cursor.owed.keys()) if (context.owed.get(id) === cursor) context.owed.delete(id);
  if (context.standalone === cursor) context.standalone = undefined;
}

/** Opens the standalone GET stream, unless one is open or the option is off. */
export function openStandaloneStream(context: ClientContext): void {
  if (!context.options.openGetStream || context.closed || context.standalone !== undefined || context.mode !== 'streamable') return;
  const cursor = createCursor(context, 'standalone', []);
  context.standalone = cursor;
  void reconnect(context, cursor);
}

function streamEnded(context: ClientContext, cursor: StreamCursor): void {
  if (context.closed || cursor.done) return;
  if (cursor.kind === 'post') {
    if (cursor.owed.size === 0) return stop(context, cursor);
    if (cursor.lastEventId === undefined) {
      return fail(context, cursor, 'the server closed the SSE stream before answering, and sent no event id to resume it from');
    }
  }
  if (cursor.attempts >= context.options.maxAttempts) {
    return fail(context, cursor, `the SSE stream could not be resumed (${cursor.attempts} reconnections brought nothing)`);
  }
  const { defaultRetryMs, growFactor, maxDelayMs } = context.options;
  const retry = cursor.retryMs ?? defaultRetryMs;
  const delayMs = cursor.attempts === 0 ? retry : Math.min(maxDelayMs, retry * growFactor ** cursor.attempts);
  cursor.attempts++;
  context.emit({ type: 'reconnecting', lastEventId: cursor.lastEventId, delayMs, attempt: cursor.attempts });
  cursor.timer = context.options.clock.setTimeout(() => {
    cursor.timer = undefined;
    void reconnect(context, cursor);
  }, delayMs);
}

async function reconnect(context: ClientContext, cursor: StreamCursor): Promise<void> {
  if (context.closed || cursor.done) return;
  if (cursor.kind === 'post' && cursor.owed.size === 0) return stop(context, cursor);
  let response: HttpResponse;
  try {
    response = await context.engine.exchange(
      { method: 'GET', url: context.url, headers: requestHeaders(context, 'get', { lastEventId: cursor.lastEventId }), lane: 'main' },
      (request) => (cursor.request = request),
    );
  } catch {
    cursor.request = undefined;
    return streamEnded(context, cursor);
  }
  if (context.closed || cursor.done) return discardBody(response);
  const status = response.statusCode ?? 0;
  if (status === 200 && mediaType(response) === 'text/event-stream') {
    if (cursor.kind === 'standalone' && !cursor.opened) context.emit({ type: 'get-stream-opened' });
    cursor.opened = true;
    return readStream(context, cursor, response);
  }
  discardBody(response);
  cursor.request = undefined;
  // 204: the server says the stream is over and holds nothing more of it; trying again cannot bring more.
  if (status === 204) return cursor.kind === 'standalone' ? stop(context, cursor) : fail(context, cursor, 'the server says the SSE stream is over (204) without their answers');
  if (cursor.kind === 'standalone' && !cursor.opened && REFUSALS.has(status)) {
    stop(context, cursor);
    return context.emit({ type: 'get-stream-refused', status });
  }
  // A refusal cannot be waited out; a server error or an odd answer might be.
  if (status >= 400 && status < 500) return fail(context, cursor, `the GET to resume the SSE stream was answered ${statusLine(response)}`);
  streamEnded(context, cursor);
}

function fail(context: ClientContext, cursor: StreamCursor, why: string): void {
  const owed = [...cursor.owed.values()];
  stop(context, cursor);
  if (cursor.kind === 'standalone') return context.emit({ type: 'get-stream-lost', error: new LocalError('TransportFailed', `The standalone GET stream was lost: ${why}`) });
  for (const request of owed) {
    context.undeliverable(request, new LocalError('TransportFailed', `No response to request ${JSON.stringify(request.id)} (${request.method}): ${why}`));
  }
}
