/**
 * The 2024-11-05 HTTP+SSE transport, for servers that predate Streamable HTTP.
 *
 * The client GETs the URL and keeps the SSE stream open for the whole connection. The first `endpoint` event
 * names the URI (relative to the URL, same origin required) where every message is POSTed; the server's
 * messages, responses included, arrive as `message` events on the stream. The stream ending ends the
 * connection: there is no resumption in that transport, so the transport closes and the session with it.
 */
import { utf8Bytes } from '../../../core/bytes.ts';
import { LocalError } from '../../../core/errors.ts';
import type { WirePayload } from '../../../core/jsonrpc.ts';
import { type ClientContext, describePayload, requestHeaders, requestsIn } from './context.ts';
import { type HttpResponse, bodyExcerpt, discardBody, mediaType, parseJson, statusLine } from './http-exchange.ts';
import { SseParser } from './sse-parser.ts';

/** Opens the legacy SSE stream and resolves with the POST endpoint it names. */
export async function openLegacyStream(context: ClientContext): Promise<URL> {
  const response = await context.engine.exchange({
    method: 'GET',
    url: context.url,
    headers: requestHeaders(context, 'get'),
    lane: 'main',
  });
  if (response.statusCode !== 200 || mediaType(response) !== 'text/event-stream') {
    const excerpt = await bodyExcerpt(response);
    throw new LocalError('TransportFailed', `GET ${context.url.href} answered ${statusLine(response)} (${mediaType(response) || 'no content type'})${excerpt === '' ? '' : `: ${excerpt}`}`);
  }
  return followLegacyStream(context, response);
}

function followLegacyStream(context: ClientContext, response: HttpResponse): Promise<URL> {
  return new Promise<URL>((resolve, reject) => {
    let endpoint: URL | undefined;
    const timeout = context.options.clock.setTimeout(() => {
      reject(new LocalError('TransportFailed', `the legacy SSE stream sent no endpoint event within ${context.options.legacyEndpointTimeoutMs} ms`));
      response.destroy();
    }, context.options.legacyEndpointTimeoutMs);
    const parser = new SseParser(
      {
        event: (event) => {
          if (context.closed) return;
          if (event.type === 'endpoint') {
            if (endpoint !== undefined) return;
            const resolved = resolveEndpoint(context.url, event.data);
            timeout.cancel();
            if (resolved instanceof LocalError) {
              reject(resolved);
              response.destroy();
              return;
            }
            endpoint = resolved;
            return resolve(resolved);
          }
          if (event.type !== 'message') return;
          const decoded = parseJson(event.data);
          if (decoded.ok) context.deliver(decoded.value);
          else context.malformed(decoded.error);
        },
        oversized: (error) => context.malformed(error),
      },
      context.options.maxMessageBytes,
    );
    response.on('data', (chunk) => parser.push(chunk));
    response.on('error', () => undefined);
    response.once('close', () => {
      parser.end();
      timeout.cancel();
      if (endpoint === undefined) reject(new LocalError('TransportFailed', 'the legacy SSE stream ended before its endpoint event'));
      else if (!context.closed) context.lost(new LocalError('TransportFailed', 'The legacy HTTP+SSE stream ended'));
    });
  });
}

function resolveEndpoint(base: URL, data: string): URL | LocalError {
  let endpoint: URL;
  try {
    endpoint = new URL(data.trim(), base);
  } catch {
    return new LocalError('ProtocolViolation', `the legacy endpoint event names no valid URI: ${JSON.stringify(data.slice(0, 200))}`);
  }
  if (endpoint.origin !== base.origin) {
    return new LocalError('ProtocolViolation', `the legacy endpoint ${endpoint.origin} is not on the server's origin ${base.origin}`);
  }
  return endpoint;
}

/** POSTs one message to the legacy endpoint; the answer (if any) comes on the SSE stream. Never rejects. */
export async function postLegacy(context: ClientContext, endpoint: URL, payload: WirePayload): Promise<void> {
  let response: HttpResponse;
  try {
    response = await context.engine.exchange({
      method: 'POST',
      url: endpoint,
      headers: requestHeaders(context, 'post'),
      body: utf8Bytes(JSON.stringify(payload)),
      lane: requestsIn(payload).length > 0 ? 'main' : 'control',
    });
  } catch (error) {
    if (!context.closed) context.undeliverable(payload, error instanceof LocalError ? error : new LocalError('TransportFailed', 'The HTTP request failed', { cause: error }));
    return;
  }
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) return discardBody(response);
  const excerpt = await bodyExcerpt(response);
  if (context.closed) return;
  context.undeliverable(payload, new LocalError('TransportFailed', `The server answered ${describePayload(payload)} with ${statusLine(response)}${excerpt === '' ? '' : `: ${excerpt}`}`));
}
