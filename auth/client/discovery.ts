/**
 * Finding the authorization server for an MCP server: protected-resource metadata (RFC 9728) from the challenge's
 * `resource_metadata` or the well-known locations (path-aware, then root; never root when the challenge named a
 * location), its `resource` checked against the server's URL before anything else happens, then the
 * authorization server's metadata (RFC 8414 and OpenID discovery in the specification's order), its issuer
 * checked against the issuer it was looked up for. Without protected-resource metadata anywhere, the 2025-03-26
 * rules: the MCP server's origin is the authorization server, with default endpoints if it has no metadata.
 * Documents are parsed and validated by oauth4webapi.
 */
import * as oauth from 'oauth4webapi';
import { AuthorizationError } from './errors.ts';
import type { OAuthRequestOptions } from './http.ts';
import { assertSecureUrl } from './http.ts';

type Http = OAuthRequestOptions;

export interface ResourceDiscovery {
  /** The protected-resource metadata (absent in the 2025-03-26 fallback). */
  readonly metadata: oauth.ResourceServer | undefined;
  /** The RFC 8707 resource indicator: the metadata's `resource` (absent in the fallback). */
  readonly resource: string | undefined;
  /** The issuer to ask: the metadata's first authorization server, or the MCP server's origin in the fallback. */
  readonly issuer: string;
}

/** `resource` names this server: same origin, and its path is the server's path or a parent of it (by segments). */
export function resourceCovers(resource: string, server: URL): boolean {
  let named: URL;
  try {
    named = new URL(resource);
  } catch {
    return false;
  }
  if (named.origin !== server.origin || named.search !== '' || named.hash !== '') return false;
  const base = named.pathname.replace(/\/+$/, '');
  const path = server.pathname.replace(/\/+$/, '');
  return path === base || path.startsWith(`${base}/`);
}

/** The server's URL as a resource identifier: no fragment, no query. */
export function canonicalResource(server: URL): URL {
  const url = new URL(server.href);
  url.hash = '';
  url.search = '';
  return url;
}

export async function discoverResource(server: URL, resourceMetadata: string | undefined, http: Http): Promise<ResourceDiscovery> {
  const candidates: URL[] = [];
  if (resourceMetadata !== undefined) {
    candidates.push(assertSecureUrl(resourceMetadata, 'the resource_metadata URL of the challenge'));
  } else {
    const path = server.pathname.replace(/\/+$/, '');
    if (path !== '') candidates.push(new URL(`/.well-known/oauth-protected-resource${path}`, server.origin));
    candidates.push(new URL('/.well-known/oauth-protected-resource', server.origin));
  }
  for (const location of candidates) {
    const response = await get(location, http);
    if (response.status !== 200) {
      await response.body?.cancel();
      if (resourceMetadata !== undefined) {
        throw new AuthorizationError('resource-metadata', `the protected-resource metadata at ${location.href} answered HTTP ${response.status}`);
      }
      continue;
    }
    const metadata = await validResourceMetadata(response, server, location);
    const issuer = metadata.authorization_servers?.[0];
    if (typeof issuer !== 'string') {
      throw new AuthorizationError('resource-metadata', `the protected-resource metadata at ${location.href} names no authorization server`);
    }
    assertSecureUrl(issuer, 'the authorization server of the protected-resource metadata');
    return { metadata, resource: metadata.resource, issuer };
  }
  // 2025-03-26: no protected-resource metadata; the MCP server's origin is its authorization server.
  return { metadata: undefined, resource: undefined, issuer: server.origin };
}

async function validResourceMetadata(response: Response, server: URL, location: URL): Promise<oauth.ResourceServer> {
  let named: unknown;
  try {
    named = ((await response.clone().json()) as { readonly resource?: unknown }).resource;
  } catch (error) {
    throw new AuthorizationError('resource-metadata', `the protected-resource metadata at ${location.href} is not JSON`, { cause: error });
  }
  if (typeof named !== 'string' || !resourceCovers(named, server)) {
    throw new AuthorizationError(
      'resource-metadata',
      `the protected-resource metadata at ${location.href} is for ${JSON.stringify(named)}, not for ${server.href}: refusing to authorize`,
    );
  }
  try {
    return await oauth.processResourceDiscoveryResponse(new URL(named), response);
  } catch (error) {
    throw new AuthorizationError('resource-metadata', `the protected-resource metadata at ${location.href} is invalid: ${reason(error)}`, { cause: error });
  }
}

/**
 * The authorization server's metadata, from the locations the specification lists for `issuer` in its order.
 * `fallback`: the 2025-03-26 rules (when nothing is found, `/authorize`, `/token` and `/register` at the issuer).
 */
export async function discoverAuthorizationServer(issuer: string, http: Http, fallback: boolean): Promise<oauth.AuthorizationServer> {
  const issuerUrl = assertSecureUrl(issuer, 'the authorization server issuer');
  for (const location of metadataLocations(issuerUrl)) {
    const response = await get(location, http);
    if (response.status !== 200) {
      await response.body?.cancel();
      continue;
    }
    let metadata: oauth.AuthorizationServer;
    try {
      metadata = await oauth.processDiscoveryResponse(issuerUrl, response);
    } catch (error) {
      throw new AuthorizationError('server-metadata', `the authorization server metadata at ${location.href} is not usable for ${issuer}: ${reason(error)}`, { cause: error });
    }
    return checkedMetadata(metadata, location);
  }
  if (!fallback) throw new AuthorizationError('server-metadata', `no authorization server metadata found for ${issuer}`);
  return checkedMetadata(
    {
      issuer,
      authorization_endpoint: new URL('/authorize', issuerUrl).href,
      token_endpoint: new URL('/token', issuerUrl).href,
      registration_endpoint: new URL('/register', issuerUrl).href,
    },
    issuerUrl,
  );
}

/**
 * RFC 8414 first, then OpenID discovery. An issuer with a path: the path after the well-known segment (both
 * kinds), then OpenID's own form (path before it); never the root documents, which describe another issuer.
 */
export function metadataLocations(issuer: URL): URL[] {
  const path = issuer.pathname.replace(/\/+$/, '');
  if (path === '') {
    return [new URL('/.well-known/oauth-authorization-server', issuer.origin), new URL('/.well-known/openid-configuration', issuer.origin)];
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
    new URL(`/.well-known/openid-configuration${path}`, issuer.origin),
    new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
  ];
}

/** Every endpoint the client may call is HTTPS (or loopback). */
function checkedMetadata(metadata: oauth.AuthorizationServer, location: URL): oauth.AuthorizationServer {
  for (const field of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint'] as const) {
    const value = metadata[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new AuthorizationError('server-metadata', `${field} in ${location.href} is not a string`);
    assertSecureUrl(value, `${field} in ${location.href}`);
  }
  return metadata;
}

async function get(location: URL, http: Http): Promise<Response> {
  const fetchWith = http[oauth.customFetch];
  if (fetchWith === undefined) throw new TypeError('the OAuth client HTTP options have no fetch');
  const signal = typeof http.signal === 'function' ? http.signal(location.href) : http.signal;
  try {
    return await fetchWith(location.href, { method: 'GET', headers: { accept: 'application/json' }, redirect: 'manual', body: undefined, signal: signal as AbortSignal });
  } catch (error) {
    if (error instanceof AuthorizationError) throw error;
    throw new AuthorizationError('server-metadata', `GET ${location.href} failed: ${reason(error)}`, { cause: error });
  }
}

export function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
