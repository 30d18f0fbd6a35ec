/**
 * CORS, for browser pages served from another origin than the endpoint (off unless `cors` is given). A page on
 * an allowed origin gets its preflight answered (the endpoint's methods, the MCP request headers, a max-age)
 * and every answer readable, with the MCP response headers exposed; any other origin gets no CORS header at
 * all, so its browser keeps the answer from it.
 *
 * CORS origins pass the Origin check too (options.ts adds them to `allowedOrigins`): listing an origin for CORS
 * says its pages may call the endpoint, and a preflight refused 403 by the Origin check would only make the two
 * options disagree.
 */
import { createOriginCheck } from '../shared/host-origin.ts';
import type { HeaderMap, HttpRequest, HttpResponder } from './http-exchange.ts';

export interface CorsOptions {
  /**
   * The origins whose pages may call the endpoint: entries as `allowedOrigins` takes them
   * (`https://app.example.com`, the scheme's default port implied; `http://localhost:*` for any port), or a
   * predicate over the request's `Origin` header. These origins pass the Origin check as well.
   */
  readonly origins: readonly string[] | ((origin: string) => boolean);
  /** How long a browser may reuse a preflight's answer, in seconds (default 600; browsers cap it, Chromium at 7200). */
  readonly maxAgeSeconds?: number;
  /**
   * Answer `Access-Control-Allow-Credentials: true`, for pages that send cookies or HTTP authentication
   * (default false). A bearer token in `Authorization` needs no credentials mode.
   */
  readonly credentials?: boolean;
  /** Request headers pages may send beyond the MCP ones, `Content-Type`, `Accept` and `Authorization`. */
  readonly allowHeaders?: readonly string[];
  /** Response headers pages may read beyond `Mcp-Session-Id`, `MCP-Protocol-Version`, `WWW-Authenticate` and `Retry-After`. */
  readonly exposeHeaders?: readonly string[];
}

/** The request headers an MCP client sends, both eras (the modern era mirrors body fields as headers). */
const MCP_REQUEST_HEADERS = ['Content-Type', 'Accept', 'Authorization', 'Mcp-Session-Id', 'MCP-Protocol-Version', 'Last-Event-ID', 'Mcp-Method', 'Mcp-Name'];
/** What a client must read from answers: the session id, the revision, auth challenges, how long to wait. */
const MCP_RESPONSE_HEADERS = ['Mcp-Session-Id', 'MCP-Protocol-Version', 'WWW-Authenticate', 'Retry-After'];
/** Tool arguments mirrored as headers: one header per marked argument, so they are allowed by prefix. */
const PARAM_HEADER_PREFIX = 'mcp-param-';
/** An HTTP header name (RFC 9110 token): nothing else is echoed back from a preflight. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

const CORS = Object.freeze({
  allowOrigin: 'access-control-allow-origin',
  allowMethods: 'access-control-allow-methods',
  allowHeaders: 'access-control-allow-headers',
  allowCredentials: 'access-control-allow-credentials',
  exposeHeaders: 'access-control-expose-headers',
  maxAge: 'access-control-max-age',
  requestMethod: 'access-control-request-method',
  requestHeaders: 'access-control-request-headers',
  vary: 'vary',
} as const);

const DEFAULT_MAX_AGE_SECONDS = 600;

export interface CorsPolicy {
  /** Whether pages on `origin` get CORS answers. */
  allows(origin: string): boolean;
  /** `res` with the CORS headers for this request's origin added to whatever it answers. */
  decorate(req: HttpRequest, res: HttpResponder): HttpResponder;
  /** Whether `req` is a preflight (OPTIONS with an Origin and Access-Control-Request-Method). */
  isPreflight(req: HttpRequest): boolean;
  /** The preflight's answer headers for a request on a path that takes `methods`. */
  preflightHeaders(req: HttpRequest, methods: string): HeaderMap;
}

export function resolveCors(options: CorsOptions | undefined): CorsPolicy | undefined {
  if (options === undefined) return undefined;
  const allows = typeof options.origins === 'function' ? options.origins : createOriginCheck(options.origins);
  const maxAge = options.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS;
  if (!Number.isInteger(maxAge) || maxAge < 0) throw new RangeError(`cors.maxAgeSeconds must be a whole number of seconds >= 0; got ${maxAge}`);
  for (const name of [...(options.allowHeaders ?? []), ...(options.exposeHeaders ?? [])]) {
    if (!HEADER_NAME.test(name.toLowerCase())) throw new RangeError(`not an HTTP header name: ${JSON.stringify(name)}`);
  }
  const allowHeaders = [...MCP_REQUEST_HEADERS, ...(options.allowHeaders ?? [])];
  const allowedLower = new Set(allowHeaders.map((name) => name.toLowerCase()));
  const credentials: HeaderMap = options.credentials === true ? { [CORS.allowCredentials]: 'true' } : {};
  const exposed: HeaderMap = { [CORS.exposeHeaders]: [...MCP_RESPONSE_HEADERS, ...(options.exposeHeaders ?? [])].join(', ') };
  // Caches must keep answers to different origins apart, allowed or not.
  const varyOnly: HeaderMap = { [CORS.vary]: 'Origin' };

  const originOf = (req: HttpRequest): string | undefined => {
    const origin = req.header('origin');
    return origin !== undefined && allows(origin) ? origin : undefined;
  };

  return {
    allows,
    decorate(req, res) {
      const origin = originOf(req);
      const headers: HeaderMap = origin === undefined ? varyOnly : { ...varyOnly, [CORS.allowOrigin]: origin, ...credentials, ...exposed };
      // The answer's own headers win (a preflight sets its own Vary).
      return {
        respond: (status, answer, body) => res.respond(status, { ...headers, ...answer }, body),
        openStream: (status, answer) => res.openStream(status, { ...headers, ...answer }),
        onFinished: (listener) => res.onFinished(listener),
        refused: res.refused,
      };
    },
    isPreflight(req) {
      return req.method === 'OPTIONS' && req.header('origin') !== undefined && req.header(CORS.requestMethod) !== undefined;
    },
    preflightHeaders(req, methods) {
      // Mcp-Param-* headers are named by the tools' schemas: each one asked for is allowed by its prefix.
      const params = (req.header(CORS.requestHeaders) ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter((name) => name.startsWith(PARAM_HEADER_PREFIX) && HEADER_NAME.test(name) && !allowedLower.has(name));
      return {
        [CORS.allowOrigin]: req.header('origin') ?? '',
        [CORS.allowMethods]: methods,
        [CORS.allowHeaders]: [...allowHeaders, ...new Set(params)].join(', '),
        [CORS.maxAge]: String(maxAge),
        ...credentials,
        [CORS.vary]: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      };
    },
  };
}
