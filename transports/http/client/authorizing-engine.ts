/**
 * The HTTP client's `auth` option, as a layer over the engine: every request of every kind (POST, the GET
 * streams, DELETE, the HTTP+SSE fallback's stream and POSTs, in both eras and on both engines) gets the headers
 * the {@link HttpClientAuth} gives, every response is shown to it, and a refusal with a challenge is put to it
 * and the request sent again when it says so, at most `maxAuthRetries` times in a row. The parts above the
 * engine never learn that authorization happened; a refusal nobody could cure rejects the exchange with an
 * `Unauthorized` LocalError. Header values are never put in messages (they hold tokens).
 */
import { LocalError } from '../../../core/errors.ts';
import type { AuthorizedRequest, AuthResponse, HttpClientAuth } from './auth-port.ts';
import { type ExchangeSpec, type HttpEngine, type HttpRequest, type HttpResponse, discardBody, headerValue } from './http-exchange.ts';

/** One exchange as the caller sees it: its requests (one per attempt) behind a single handle. */
class AuthorizedExchange implements HttpRequest {
  current: HttpRequest | undefined;
  aborted = false;

  destroy(): void {
    this.aborted = true;
    this.current?.destroy();
  }
}

export function authorizingEngine(inner: HttpEngine, auth: HttpClientAuth, maxAuthRetries: number, endpoint: URL): HttpEngine {
  const abort = (request: HttpRequest): void => {
    if (request instanceof AuthorizedExchange) {
      request.aborted = true;
      if (request.current !== undefined) inner.abort(request.current);
      return;
    }
    inner.abort(request);
  };

  return {
    async exchange(spec: ExchangeSpec, onRequest?: (request: HttpRequest) => void): Promise<HttpResponse> {
      const handle = new AuthorizedExchange();
      onRequest?.(handle);
      const target = { method: spec.method, url: spec.url, endpoint };
      for (let retries = 0; ; retries++) {
        const extra = await authorizationHeaders(auth, target);
        if (handle.aborted) throw aborted(spec);
        // The transport's own headers win over the caller's, as with the `headers` option.
        const response = await inner.exchange({ ...spec, headers: { ...extra, ...spec.headers } }, (request) => {
          handle.current = request;
          if (handle.aborted) inner.abort(request);
        });
        const seen = authResponse(response, spec, extra, endpoint);
        auth.observe?.(seen);
        if (!isChallenge(response)) return response;
        discardBody(response);
        const refusal = `${spec.method} ${spec.url.href} was refused with HTTP ${response.statusCode}`;
        if (retries >= maxAuthRetries) {
          throw new LocalError('Unauthorized', `${refusal} after ${maxAuthRetries} authorization attempt(s)${challengeSummary(response)}`);
        }
        let again: boolean;
        try {
          again = await auth.challenged(seen);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new LocalError('Unauthorized', `${refusal} and authorization failed: ${reason}`, { cause: error });
        }
        if (handle.aborted) throw aborted(spec);
        if (!again) throw new LocalError('Unauthorized', `${refusal}${challengeSummary(response)}`);
      }
    },
    abort,
    get inFlight() {
      return inner.inFlight;
    },
    abortAll() {
      inner.abortAll();
    },
    dispose() {
      inner.dispose();
    },
  };
}

async function authorizationHeaders(auth: HttpClientAuth, target: AuthorizedRequest): Promise<Readonly<Record<string, string>>> {
  try {
    return await auth.headersFor(target);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new LocalError('Unauthorized', `No credentials for ${target.method} ${target.url.href}: ${reason}`, { cause: error });
  }
}

/** 401 always; 403 only with a challenge (a plain 403 is the server's answer, not a question for the client). */
function isChallenge(response: HttpResponse): boolean {
  const status = response.statusCode;
  return status === 401 || (status === 403 && headerValue(response, 'www-authenticate') !== undefined);
}

function authResponse(response: HttpResponse, spec: ExchangeSpec, sentWith: Readonly<Record<string, string>>, endpoint: URL): AuthResponse {
  return {
    endpoint,
    sentWith,
    status: response.statusCode ?? 0,
    url: spec.url,
    method: spec.method,
    header: (name) => {
      const value = response.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/** The challenge itself, bounded, for the message (challenges carry no token). */
function challengeSummary(response: HttpResponse): string {
  const challenge = headerValue(response, 'www-authenticate');
  if (challenge === undefined) return '';
  const bounded = challenge.length > 300 ? `${challenge.slice(0, 300)}...` : challenge;
  return ` (WWW-Authenticate: ${bounded})`;
}

function aborted(spec: ExchangeSpec): LocalError {
  return new LocalError('RequestAborted', `${spec.method} ${spec.url.href} was aborted`);
}
