/**
 * How the OAuth client speaks HTTP to metadata, registration and token endpoints: through oauth4webapi, with a
 * fetch of ours under it that refuses any URL neither HTTPS nor loopback (the kit's one rule, auth/policy),
 * never follows redirects, bounds every body (a huge metadata document is refused, not parsed) and times out.
 */
import * as oauth from 'oauth4webapi';
import { insecureUrlReason } from '../policy/secure-url.ts';
import { AuthorizationError } from './errors.ts';

export interface OAuthHttpOptions {
  /** The fetch to use (default: the global one). */
  readonly fetch?: typeof fetch;
  /** Largest body accepted from a metadata, registration or token endpoint, in bytes (default 256 KiB). */
  readonly maxResponseBytes?: number;
  /** Time limit of each HTTP request, in milliseconds (default 30 s). */
  readonly timeoutMs?: number;
}

/** What every oauth4webapi call of the client gets: our fetch, the time limit. Any body type passes through it. */
export type OAuthRequestOptions = oauth.HttpRequestOptions<'GET' | 'POST', oauth.ProtectedResourceRequestBody>;

/** HTTPS, or http on loopback (auth/policy/secure-url.ts); anything else is refused before a request is made. */
export function assertSecureUrl(value: string | URL, what: string): URL {
  let url: URL;
  try {
    url = typeof value === 'string' ? new URL(value) : value;
  } catch {
    throw new AuthorizationError('insecure-server', `${what} is not a URL`);
  }
  const problem = insecureUrlReason(url, true);
  if (problem === undefined) return url;
  throw new AuthorizationError('insecure-server', `${what}: ${problem}`);
}

// Called through globalThis: a browser's fetch called without its global as `this` throws "Illegal invocation".
const globalFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);

/** The options every oauth4webapi call gets. */
export function oauthHttp(options: OAuthHttpOptions): OAuthRequestOptions {
  const fetchFunction = options.fetch ?? globalFetch;
  const maxBytes = options.maxResponseBytes ?? 256 * 1024;
  const timeoutMs = options.timeoutMs ?? 30_000;
  return {
    signal: () => AbortSignal.timeout(timeoutMs),
    // Checked in our fetch instead, for every URL (oauth4webapi's own check knows no loopback exception).
    [oauth.allowInsecureRequests]: true,
    [oauth.customFetch]: async (url, init) => {
      assertSecureUrl(url, 'an OAuth endpoint');
      const response = await fetchFunction(url, { ...init, redirect: 'manual' } as RequestInit);
      const body = await readBounded(response, maxBytes, url);
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    },
  };
}

async function readBounded(response: Response, maxBytes: number, url: string): Promise<Uint8Array | null> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new AuthorizationError('server-metadata', `${new URL(url).origin}${new URL(url).pathname} answered ${declared} bytes, more than the limit of ${maxBytes}`);
  }
  if (response.body === null) return null;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel();
      throw new AuthorizationError('server-metadata', `${new URL(url).origin}${new URL(url).pathname} answered more than the limit of ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const whole = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}
