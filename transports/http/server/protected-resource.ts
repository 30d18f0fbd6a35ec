/**
 * The endpoint as an OAuth protected resource: its metadata document (RFC 9728) at
 * `/.well-known/oauth-protected-resource` and at the same path suffixed with the MCP endpoint's path (where
 * clients that follow RFC 9728 section 3.1 look for a resource with a path), and the `WWW-Authenticate`
 * challenges (RFC 6750 section 3) that name it, so a client refused with 401 or 403 knows where to go next.
 */
import { HEADER } from '../shared/headers.ts';
import type { HeaderMap, HttpRequest, HttpResponder } from './http-exchange.ts';
import { JSON_HEADERS, methodNotAllowed } from './replies.ts';

/** The RFC 9728 document. `resource` is required; the rest as the RFC defines them. */
export interface ProtectedResourceMetadata {
  /** This server's canonical resource URI (the audience its tokens must name, RFC 8707). */
  readonly resource: string;
  readonly authorization_servers?: readonly string[];
  readonly scopes_supported?: readonly string[];
  readonly bearer_methods_supported?: readonly string[];
  readonly resource_name?: string;
  readonly resource_documentation?: string;
  readonly dpop_signing_alg_values_supported?: readonly string[];
  readonly dpop_bound_access_tokens_required?: boolean;
  readonly [member: string]: unknown;
}

export interface ProtectedResourceOptions {
  readonly metadata: ProtectedResourceMetadata;
  /**
   * The metadata URL challenges name in `resource_metadata` (default: the path-suffixed well-known URL derived
   * from `metadata.resource`, as RFC 9728 section 3.1 builds it).
   */
  readonly metadataUrl?: string;
  /** The `scope` a 401 challenge suggests (default: `scopes_supported` joined, when given). */
  readonly challengeScopes?: readonly string[];
}

/** What a challenge may add to the `resource_metadata` and `scope` parameters. */
export interface ChallengeDetails {
  readonly error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  readonly errorDescription?: string;
  /** Overrides the default scope of the challenge (the scopes a step-up needs). */
  readonly scopes?: readonly string[];
  /** The authentication scheme (default `Bearer`; `DPoP` for DPoP-bound tokens, RFC 9449 section 7.1). */
  readonly scheme?: 'Bearer' | 'DPoP';
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';
/** Readable by any page: the document is public and is never sent with credentials (no Allow-Credentials). */
const PUBLIC_CORS: HeaderMap = Object.freeze({ 'access-control-allow-origin': '*' });
/** An HTTP header name (RFC 9110 token): nothing else is echoed back from a preflight. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
/** More request headers than any client sends with a metadata GET. */
const MAX_PREFLIGHT_HEADERS = 16;

/** The headers a preflight asks to send, those that are header names (any: reading public JSON grants nothing). */
function requestedHeaders(req: HttpRequest): string {
  const asked = (req.header('access-control-request-headers') ?? '').split(',').map((name) => name.trim().toLowerCase());
  return [...new Set(asked.filter((name) => HEADER_NAME.test(name)))].slice(0, MAX_PREFLIGHT_HEADERS).join(', ');
}

/** The resolved form the endpoint serves: the document's bytes, the paths it lives at, the challenge builder. */
export class ProtectedResource {
  readonly paths: ReadonlySet<string>;
  readonly metadataUrl: string;
  private readonly body: string;
  private readonly defaultScopes: readonly string[] | undefined;

  constructor(options: ProtectedResourceOptions, endpointPath: string) {
    const { metadata } = options;
    const resource = new URL(metadata.resource);
    this.body = JSON.stringify(metadata);
    const suffix = resource.pathname === '/' ? '' : resource.pathname.replace(/\/$/, '');
    this.metadataUrl = options.metadataUrl ?? `${resource.origin}${WELL_KNOWN}${suffix}`;
    // Both the bare well-known path and the path-suffixed ones: the resource's own path and the endpoint's.
    this.paths = new Set([WELL_KNOWN, `${WELL_KNOWN}${suffix}`, `${WELL_KNOWN}${endpointPath}`]);
    this.defaultScopes = options.challengeScopes ?? metadata.scopes_supported;
  }

  /**
   * Serves the document (GET; public, cacheable, readable by pages on any origin: `Access-Control-Allow-Origin: *`
   * and no credentials). A CORS preflight (a page sending `MCP-Protocol-Version` with its GET) is answered too.
   */
  answer(req: HttpRequest, res: HttpResponder): void {
    if (req.method === 'OPTIONS' && req.header('origin') !== undefined && req.header('access-control-request-method') !== undefined) {
      const headers = requestedHeaders(req);
      return res.respond(204, { ...PUBLIC_CORS, 'access-control-allow-methods': 'GET, HEAD', ...(headers === '' ? {} : { 'access-control-allow-headers': headers }), 'access-control-max-age': '600' });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(res, 'GET', 'the protected-resource metadata is read with GET');
    res.respond(200, { ...JSON_HEADERS, [HEADER.cacheControl]: 'public, max-age=300', ...PUBLIC_CORS }, req.method === 'HEAD' ? undefined : this.body);
  }

  /** A `WWW-Authenticate` value naming this resource's metadata. */
  challenge(details: ChallengeDetails = {}): string {
    return buildChallenge(this.metadataUrl, details.scopes ?? this.defaultScopes, details);
  }
}

/** `Bearer resource_metadata="...", scope="...", error="...", error_description="..."` (quoted-string values). */
export function buildChallenge(metadataUrl: string | undefined, scopes: readonly string[] | undefined, details: ChallengeDetails = {}): string {
  const params: string[] = [];
  if (metadataUrl !== undefined) params.push(`resource_metadata=${quoted(metadataUrl)}`);
  if (scopes !== undefined && scopes.length > 0) params.push(`scope=${quoted(scopes.join(' '))}`);
  if (details.error !== undefined) params.push(`error=${quoted(details.error)}`);
  if (details.errorDescription !== undefined) params.push(`error_description=${quoted(details.errorDescription)}`);
  const scheme = details.scheme ?? 'Bearer';
  return params.length === 0 ? scheme : `${scheme} ${params.join(', ')}`;
}

/** An RFC 7230 quoted-string; characters RFC 6750 excludes from its values are dropped, not escaped. */
function quoted(value: string): string {
  return `"${value.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '')}"`;
}

/**
 * The challenge of a 403 for an -32043 error: `insufficient_scope` with the scopes `data.requiredScopes` names,
 * so the client can ask its authorization server for them and retry (the MCP step-up flow).
 */
export function stepUpHeaders(error: { readonly data?: unknown }, settings: { readonly challenge: { challenge(details: ChallengeDetails): string } | undefined }): HeaderMap {
  const required = (error.data as { requiredScopes?: unknown } | undefined)?.requiredScopes;
  const scopes = Array.isArray(required) ? required.filter((scope): scope is string => typeof scope === 'string') : [];
  const details = { error: 'insufficient_scope', errorDescription: 'the token lacks a scope this request needs', scopes } as const;
  return { ...JSON_HEADERS, 'www-authenticate': settings.challenge?.challenge(details) ?? buildChallenge(undefined, scopes, details) };
}
