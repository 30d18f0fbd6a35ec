/**
 * Transparent session renewal. A server that ended our session answers 404 to its id; the specification then
 * asks the client to start a new session. The transport does it below the session: it replays the
 * `initialize` request the session sent (the same id, capabilities and client info), takes the new
 * `Mcp-Session-Id`, sends `notifications/initialized`, and the caller retries the message that met the 404,
 * once. The session never notices, except through the `session-renewed` event.
 *
 * What is lost: everything the server kept for the old session (resource subscriptions, the log level,
 * running tasks, streams of requests in flight). A renewal that negotiates another protocol version fails:
 * the session above cannot change its revision.
 *
 * Renewals are shared: every message that meets the 404 while one runs waits for the same one.
 */
import { utf8Bytes } from '../../../core/bytes.ts';
import { LocalError } from '../../../core/errors.ts';
import { type JsonRpcRequest, type RequestId, notification } from '../../../core/jsonrpc.ts';
import { type ClientContext, isValidSessionId, requestHeaders } from './context.ts';
import { type HttpResponse, bodyExcerpt, discardBody, headerValue, mediaType, parseJson, readBody, statusLine } from './http-exchange.ts';
import { openStandaloneStream, stop } from './resumption.ts';
import { SseParser } from './sse-parser.ts';

type Answer = { readonly [key: string]: unknown };

/** Renews the session (or joins the renewal under way). Settles with the error, or undefined when it worked. */
export function renewSession(context: ClientContext): Promise<LocalError | undefined> {
  context.renewal ??= renew(context).finally(() => {
    context.renewal = undefined;
  });
  return context.renewal;
}

async function renew(context: ClientContext): Promise<LocalError | undefined> {
  const previous = context.sessionId ?? '';
  const initialize = context.initialize;
  if (context.standalone !== undefined) stop(context, context.standalone);
  context.sessionId = undefined;
  try {
    if (initialize === undefined) throw new LocalError('TransportFailed', 'no initialize request was seen to replay');
    const sessionId = await replayInitialize(context, initialize);
    context.sessionId = sessionId;
    await acknowledge(context);
    context.emit({ type: 'session-renewed', previousSessionId: previous, sessionId });
    openStandaloneStream(context);
    return undefined;
  } catch (error) {
    const local = error instanceof LocalError ? error : new LocalError('TransportFailed', 'The session renewal failed', { cause: error });
    context.sessionId = previous === '' ? undefined : previous;
    context.emit({ type: 'session-renewal-failed', previousSessionId: previous, error: local });
    return local;
  }
}

async function replayInitialize(context: ClientContext, initialize: JsonRpcRequest): Promise<string | undefined> {
  const response = await context.engine.exchange({
    method: 'POST',
    url: context.url,
    headers: requestHeaders(context, 'post', { handshake: true }),
    body: utf8Bytes(JSON.stringify(initialize)),
    lane: 'main',
  });
  const status = response.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    const excerpt = await bodyExcerpt(response);
    throw new LocalError('TransportFailed', `initialize was answered ${statusLine(response)}${excerpt === '' ? '' : `: ${excerpt}`}`);
  }
  const sessionId = headerValue(response, 'mcp-session-id');
  if (sessionId !== undefined && !isValidSessionId(sessionId)) {
    discardBody(response);
    throw new LocalError('ProtocolViolation', 'the new Mcp-Session-Id is not visible ASCII (0x21-0x7E)');
  }
  const answer = await initializeAnswer(context, response, initialize.id);
  const result = answer['result'];
  if (typeof result !== 'object' || result === null) {
    const error = answer['error'];
    const message = typeof error === 'object' && error !== null && 'message' in error ? String(error.message) : 'no result';
    throw new LocalError('TransportFailed', `initialize failed: ${message}`);
  }
  const version = 'protocolVersion' in result ? result.protocolVersion : undefined;
  if (version !== context.protocolVersion) {
    throw new LocalError('UnsupportedVersion', `the new session negotiated ${JSON.stringify(version)} instead of ${JSON.stringify(context.protocolVersion)}`);
  }
  return sessionId;
}

async function acknowledge(context: ClientContext): Promise<void> {
  const response = await context.engine.exchange({
    method: 'POST',
    url: context.url,
    headers: requestHeaders(context, 'post'),
    body: utf8Bytes(JSON.stringify(notification('notifications/initialized'))),
    lane: 'control',
  });
  discardBody(response);
  const status = response.statusCode ?? 0;
  if (status < 200 || status >= 300) throw new LocalError('TransportFailed', `notifications/initialized was answered ${statusLine(response)}`);
}

/** The response to the replayed `initialize`, from a JSON or an SSE answer. Other messages go to the session. */
async function initializeAnswer(context: ClientContext, response: HttpResponse, id: RequestId): Promise<Answer> {
  if (mediaType(response) === 'application/json') {
    const parsed = parseJson(await readBody(response, context.options.maxMessageBytes));
    if (!parsed.ok) throw parsed.error;
    const found = (Array.isArray(parsed.value) ? parsed.value : [parsed.value]).find((item) => answers(item, id));
    if (found === undefined) throw new LocalError('TransportFailed', 'the answer to initialize carried no response to it');
    return found as Answer;
  }
  if (mediaType(response) !== 'text/event-stream') {
    discardBody(response);
    throw new LocalError('TransportFailed', `initialize was answered with content type "${mediaType(response)}"`);
  }
  return new Promise<Answer>((resolve, reject) => {
    let found = false;
    const parser = new SseParser(
      {
        event: (event) => {
          if (event.type !== 'message') return;
          const parsed = parseJson(event.data);
          if (!parsed.ok) return context.malformed(parsed.error);
          if (!found && answers(parsed.value, id)) {
            found = true;
            return resolve(parsed.value as Answer);
          }
          context.deliver(parsed.value);
        },
        oversized: (error) => context.malformed(error),
      },
      context.options.maxMessageBytes,
    );
    response.on('data', (chunk) => parser.push(chunk));
    response.on('error', () => undefined);
    response.once('close', () => {
      parser.end();
      if (!found) reject(new LocalError('TransportFailed', 'the SSE answer to initialize ended without a response to it'));
    });
  });
}

function answers(item: unknown, id: RequestId): boolean {
  return typeof item === 'object' && item !== null && !('method' in item) && 'id' in item && item.id === id;
}
