/**
 * One HTTP exchange on node:http / node:https, and the body helpers around it.
 *
 * Why not fetch: undici's fetch costs most of the throughput of small JSON-RPC exchanges, and a shared
 * AbortSignal collects one listener per request in flight. Here each request is an object of its own: its
 * listeners live on it and die with it, nothing is added to a socket or to a shared signal, and no timer is
 * armed per request. Close aborts what is still running by destroying the requests it tracks.
 */
import { type Agent, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { LocalError } from '../../../core/errors.ts';

export interface ExchangeSpec {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly url: URL;
  readonly headers: OutgoingHttpHeaders;
  readonly agent: Agent;
  readonly body?: Buffer;
}

/** Requests still running, so that close can abort them. */
export type ActiveRequests = Set<ClientRequest>;

/** Requests we ended on purpose: their 'socket hang up' is not a reason to send them again. */
const abandoned = new WeakSet<ClientRequest>();

/**
 * Ends a request on purpose (a cancellation, the transport closing): the socket is destroyed, so the server sees
 * the client leave, and a request still waiting for its response head rejects with a `RequestAborted` error
 * instead of being resent on a fresh socket.
 */
export function abortExchange(request: ClientRequest): void {
  abandoned.add(request);
  request.destroy();
}

/**
 * Starts one request and resolves with the response head. Rejects with a `TransportFailed` LocalError, or a
 * `RequestAborted` one when {@link abortExchange} ended it.
 */
export function exchange(active: ActiveRequests, spec: ExchangeSpec, onRequest?: (request: ClientRequest) => void): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const send = spec.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers = spec.body === undefined ? spec.headers : { ...spec.headers, 'content-length': spec.body.byteLength };
    const attempt = (retried: boolean): void => {
      const request = send(spec.url, { method: spec.method, headers, agent: spec.agent });
      let answered = false;
      active.add(request);
      request.once('response', (response) => {
        answered = true;
        resolve(response);
      });
      // `on`, not `once`: a socket error after the response head must not become an unhandled 'error' event.
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (abandoned.has(request)) {
          reject(new LocalError('RequestAborted', `${spec.method} ${spec.url.href} was aborted`, { cause: error }));
          return;
        }
        // A kept-alive socket the server closed while idle fails before the request reached the server:
        // Node's documented remedy is to send it again, once, on a fresh socket.
        if (!answered && !retried && request.reusedSocket && error.code === 'ECONNRESET') {
          attempt(true);
          return;
        }
        reject(new LocalError('TransportFailed', `${spec.method} ${spec.url.href} failed: ${error.message}`, { cause: error }));
      });
      request.once('close', () => active.delete(request));
      onRequest?.(request);
      request.end(spec.body);
    };
    attempt(false);
  });
}

/** The media type of a response, lower case, without parameters ("text/event-stream"). */
export function mediaType(response: IncomingMessage): string {
  const header = response.headers['content-type'] ?? '';
  const end = header.indexOf(';');
  return (end < 0 ? header : header.slice(0, end)).trim().toLowerCase();
}

/** Reads a whole body, up to `maxBytes` (larger bodies reject with `FrameTooLarge` and are dropped). */
export function readBody(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    response.on('data', (chunk: Buffer) => {
      length += chunk.byteLength;
      if (length > maxBytes) {
        response.destroy();
        reject(new LocalError('FrameTooLarge', `an HTTP body exceeds the frame limit of ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    response.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length)));
    response.once('error', (error) => reject(new LocalError('TransportFailed', `reading an HTTP body failed: ${error.message}`, { cause: error })));
    response.once('close', () => {
      if (!response.complete) reject(new LocalError('TransportFailed', 'the connection closed before the HTTP body was complete'));
    });
  });
}

/** Consumes and drops a body, so the socket goes back to the keep-alive pool. */
export function discardBody(response: IncomingMessage): void {
  response.resume();
}

/** The start of a body, for error messages (bounded, one line). */
export async function bodyExcerpt(response: IncomingMessage, maxChars = 200): Promise<string> {
  let text: string;
  try {
    text = (await readBody(response, 64 * 1024)).toString('utf8');
  } catch {
    return '';
  }
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > maxChars ? `${line.slice(0, maxChars)}...` : line;
}

/** Parses JSON text; undefined when it is not JSON. */
export function parseJson(bytes: Buffer): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: LocalError } {
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch (error) {
    return { ok: false, error: new LocalError('DecodeFailed', `malformed JSON in a ${bytes.byteLength}-byte HTTP body`, { cause: error }) };
  }
}

/** "HTTP 500 Internal Server Error". */
export function statusLine(response: IncomingMessage): string {
  const reason = response.statusMessage === undefined || response.statusMessage === '' ? '' : ` ${response.statusMessage}`;
  return `HTTP ${response.statusCode ?? 0}${reason}`;
}
