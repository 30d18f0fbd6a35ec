/**
 * The OAuth resource-server flags the commands that serve HTTP share (`serve`, `gateway`), one parser for both:
 * `--auth-issuer` turns protection on, the rest shape what `bearerAuth` (rxmcp/auth) checks. Every value is
 * checked here, so a mistake is a usage error at start rather than every caller refused later.
 */
import { type BearerAuth, bearerAuth } from '../auth/index.ts';
import { isLoopbackHost } from '../auth/policy/secure-url.ts';
import { UsageError } from './args.ts';

export const authFlags = {
  'auth-issuer': { type: 'string', multiple: true },
  'auth-resource': { type: 'string' },
  'auth-scope': { type: 'string', multiple: true },
  'auth-jwks': { type: 'string' },
  'auth-audience': { type: 'string', multiple: true },
  'auth-allow-loopback-http': { type: 'boolean' },
  'auth-any-token-type': { type: 'boolean' },
} as const;

export const authHelp = `authorization (OAuth 2.1 resource server; docs/auth.md, "From the command line"):
  --auth-issuer URL     an authorization server whose access tokens are accepted (repeatable); turns
                        protection on: requests without a valid token are answered 401
  --auth-resource URL   this server's canonical resource URI, the audience tokens must name (default: the
                        URL it listens on, http://host:port/path)
  --auth-scope S        a scope every request needs (repeatable; a token without it is answered 403)
  --auth-jwks URL       the issuer's JWKS (one issuer only; default: discovered from its metadata)
  --auth-audience A     the audience tokens must name instead of the resource URI (repeatable)
  --auth-allow-loopback-http  accept plain http issuer and JWKS URLs on loopback hosts (local development)
  --auth-any-token-type  accept JWT access tokens whatever their typ header (default: at+jwt only, RFC 9068;
                        for issuers that label theirs JWT)`;

/** The flags as checked; `resource` undefined means the URL the command listens on. */
export interface AuthArgs {
  readonly issuers: readonly string[];
  readonly resource: string | undefined;
  readonly scopes: readonly string[];
  readonly jwksUri: string | undefined;
  readonly audiences: readonly string[];
  readonly allowLoopbackHttp: boolean;
  /** `any`: JWTs of any `typ` (`--auth-any-token-type`); else RFC 9068's `at+jwt`. */
  readonly accessTokenType: 'at+jwt' | 'any';
}

type AuthValues = {
  readonly 'auth-issuer'?: string[] | undefined;
  readonly 'auth-resource'?: string | undefined;
  readonly 'auth-scope'?: string[] | undefined;
  readonly 'auth-jwks'?: string | undefined;
  readonly 'auth-audience'?: string[] | undefined;
  readonly 'auth-allow-loopback-http'?: boolean | undefined;
  readonly 'auth-any-token-type'?: boolean | undefined;
};

/** RFC 6749 section 3.3 scope-token: printable ASCII except space, `"` and `\`. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** The names of the auth flags that were given, as typed (for "needs --auth-issuer" and "not with --stdio"). */
export function authFlagsGiven(values: AuthValues): string[] {
  return Object.keys(authFlags).filter((flag) => values[flag as keyof AuthValues] !== undefined).map((flag) => `--${flag}`);
}

/** The checked flags, or undefined when protection is off (no `--auth-issuer`). */
export function authArgsOf(command: string, values: AuthValues): AuthArgs | undefined {
  const issuers = values['auth-issuer'] ?? [];
  if (issuers.length === 0) {
    const stray = authFlagsGiven(values)[0];
    if (stray !== undefined) throw new UsageError(command, `${stray} needs --auth-issuer URL (whose tokens would it accept?)`);
    return undefined;
  }
  const allowLoopbackHttp = values['auth-allow-loopback-http'] === true;
  for (const issuer of issuers) {
    const url = urlValue(command, '--auth-issuer', issuer);
    if (url.search !== '' || url.hash !== '') throw new UsageError(command, `--auth-issuer is an issuer identifier, without a query or fragment (RFC 8414), got ${JSON.stringify(issuer)}`);
    fetchableOrExplain(command, '--auth-issuer', url, allowLoopbackHttp);
  }
  if (new Set(issuers).size !== issuers.length) throw new UsageError(command, '--auth-issuer names the same authorization server twice');
  const jwksUri = values['auth-jwks'];
  if (jwksUri !== undefined) {
    if (issuers.length > 1) throw new UsageError(command, '--auth-jwks names the keys of one authorization server; with several --auth-issuer, each one\'s keys are discovered');
    fetchableOrExplain(command, '--auth-jwks', urlValue(command, '--auth-jwks', jwksUri), allowLoopbackHttp);
  }
  const resource = values['auth-resource'];
  if (resource !== undefined) {
    const url = urlValue(command, '--auth-resource', resource);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(command, `--auth-resource must be an http(s) URL, got ${JSON.stringify(resource)}`);
    if (url.hash !== '') throw new UsageError(command, `--auth-resource must have no fragment (RFC 8707), got ${JSON.stringify(resource)}`);
  }
  const scopes = values['auth-scope'] ?? [];
  for (const scope of scopes) if (!SCOPE_TOKEN.test(scope)) throw new UsageError(command, `--auth-scope takes one scope (printable, no spaces or quotes; repeat the flag for more), got ${JSON.stringify(scope)}`);
  const audiences = values['auth-audience'] ?? [];
  for (const audience of audiences) if (audience.trim() === '') throw new UsageError(command, '--auth-audience must not be empty');
  const accessTokenType = values['auth-any-token-type'] === true ? 'any' : 'at+jwt';
  return { issuers: [...issuers], resource, scopes: [...new Set(scopes)], jwksUri, audiences: [...audiences], allowLoopbackHttp, accessTokenType };
}

/**
 * The resource URI a command listening at `host:port` + `path` has when `--auth-resource` is not given; a usage
 * error when that address names no one place a client could reach (a wildcard host, a port picked at start).
 */
export function resourceOf(command: string, auth: AuthArgs, listen: { readonly host: string; readonly port: number; readonly path: string }): string {
  if (auth.resource !== undefined) return auth.resource;
  if (listen.port === 0) throw new UsageError(command, '--auth-issuer with --port 0 needs --auth-resource URL (the port is only known once listening, and tokens must name it)');
  if (listen.host === '0.0.0.0' || listen.host === '::' || listen.host === '') throw new UsageError(command, `--auth-issuer with --host ${listen.host || '""'} needs --auth-resource URL: the URL clients reach this server at, which tokens must name`);
  const host = listen.host.includes(':') && !listen.host.startsWith('[') ? `[${listen.host}]` : listen.host;
  return `http://${host}:${listen.port}${listen.path}`;
}

/** The `authenticate` hook and protected-resource metadata for the HTTP server options. */
export function bearerAuthOf(auth: AuthArgs, resource: string): BearerAuth {
  return bearerAuth({
    resource,
    authorizationServers: auth.issuers,
    ...(auth.jwksUri === undefined ? {} : { jwksUri: auth.jwksUri }),
    ...(auth.audiences.length === 0 ? {} : { audience: auth.audiences }),
    ...(auth.scopes.length === 0 ? {} : { requiredScopes: auth.scopes, scopesSupported: auth.scopes }),
    allowLoopbackHttp: auth.allowLoopbackHttp,
    accessTokenType: auth.accessTokenType,
  });
}

/** One line for the start-up message: what the server now asks of its callers. */
export function describeAuth(auth: AuthArgs, resource: string): string {
  const scopes = auth.scopes.length === 0 ? '' : `, scopes ${auth.scopes.join(' ')}`;
  return `requests need an access token from ${auth.issuers.join(' or ')} for ${auth.audiences.length === 0 ? resource : auth.audiences.join(' or ')}${scopes}`;
}

function urlValue(command: string, flag: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(command, `${flag} must be an absolute URL, got ${JSON.stringify(raw)}`);
  }
  return url;
}

/** Keys and metadata are fetched: https, or plain http to a loopback host when the user allowed it. */
function fetchableOrExplain(command: string, flag: string, url: URL, allowLoopbackHttp: boolean): void {
  if (url.protocol === 'https:') return;
  const shown = JSON.stringify(url.href);
  if (url.protocol !== 'http:') throw new UsageError(command, `${flag} must be an https URL, got ${shown}`);
  if (!isLoopbackHost(url.hostname)) throw new UsageError(command, `${flag} must be https (plain http only to a loopback host, with --auth-allow-loopback-http), got ${shown}`);
  if (!allowLoopbackHttp) throw new UsageError(command, `${flag} ${shown} is plain http: add --auth-allow-loopback-http to allow it for a loopback authorization server (local development), or use https`);
}
