/**
 * The redirect listener of a command-line login (RFC 8252 section 7.3): an HTTP listener on 127.0.0.1 at a port
 * the kernel picks, waiting for the one browser redirect that carries the authorization response.
 *
 * One-shot and bounded: it accepts only `GET <path>` whose `state` is the one expected (anything else is answered
 * 400 and ignored, so a stray or forged request can neither end the login nor inject a code), answers the browser,
 * and closes; it gives up after `timeoutMs` or when the signal aborts. Nothing it receives is logged.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackRedirect {
  /** `http://127.0.0.1:<port>/callback`: the redirect URI to register and send. */
  readonly redirectUri: string;
  /**
   * Resolves with the full redirect URL (query: `code`, `state`, `iss`, or `error`) once a request with
   * `expectedState` arrives; rejects on timeout or abort. The listener is closed either way. Call once.
   */
  waitFor(expectedState: string, options?: { readonly timeoutMs?: number; readonly signal?: AbortSignal }): Promise<URL>;
  /** Closes the listener (idempotent). */
  close(): Promise<void>;
}

export class LoginTimeout extends Error {
  override readonly name = 'LoginTimeout';
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const PAGE_DONE = '<!doctype html><title>rxmcp</title><p>Signed in. You can close this window and return to the terminal.</p>';
const PAGE_REFUSED = '<!doctype html><title>rxmcp</title><p>The authorization server refused the login. See the terminal.</p>';

export async function listenForRedirect(path = '/callback'): Promise<LoopbackRedirect> {
  let deliver: ((request: IncomingMessage, response: ServerResponse) => boolean) | undefined;
  const server = createServer((request, response) => {
    response.setHeader('cache-control', 'no-store');
    response.setHeader('referrer-policy', 'no-referrer');
    if (request.method !== 'GET' || deliver === undefined || !deliver(request, response)) {
      response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('not the login this command is waiting for\n');
    }
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const redirectUri = `http://127.0.0.1:${port}${path}`;

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= new Promise<void>((resolve) => {
      deliver = undefined;
      server.close(() => resolve());
      server.closeIdleConnections();
    }));

  let waited = false;
  return {
    redirectUri,
    close,
    waitFor(expectedState, options = {}) {
      if (waited) return Promise.reject(new Error('the redirect listener serves one login only'));
      waited = true;
      return new Promise<URL>((resolve, reject) => {
        const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
        const settle = (outcome: () => void): void => {
          clearTimeout(timer);
          options.signal?.removeEventListener('abort', onAbort);
          void close();
          outcome();
        };
        const timer = setTimeout(
          () => settle(() => reject(new LoginTimeout(`no login completed within ${Math.round(timeoutMs / 1000)} s`))),
          timeoutMs,
        );
        const onAbort = (): void => settle(() => reject(options.signal?.reason ?? new Error('login aborted')));
        if (options.signal?.aborted === true) {
          onAbort();
          return;
        }
        options.signal?.addEventListener('abort', onAbort, { once: true });
        deliver = (request, response) => {
          const url = new URL(request.url ?? '/', redirectUri);
          if (url.pathname !== path || url.searchParams.get('state') !== expectedState) return false;
          const refused = url.searchParams.has('error');
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', connection: 'close' });
          response.end(refused ? PAGE_REFUSED : PAGE_DONE);
          settle(() => resolve(url));
          return true;
        };
      });
    },
  };
}
