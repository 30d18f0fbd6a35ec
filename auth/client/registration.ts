/**
 * Who this client is at an authorization server, in the specification's order: credentials the program was
 * given for that server (pre-registration); a Client ID Metadata Document URL when the server supports them; a
 * registration made earlier and kept in the store (per issuer); else dynamic registration (RFC 7591) through
 * oauth4webapi. And how it authenticates at the token endpoint (`none`, `client_secret_basic`,
 * `client_secret_post`, or what a program's own `clientAuthentication` gives).
 */
import * as oauth from 'oauth4webapi';
import { AuthorizationError } from './errors.ts';
import type { OAuthRequestOptions } from './http.ts';
import type { ClientRegistration, OAuthStore } from './store.ts';
import { clientSecretBasic } from '../policy/client-secret-basic.ts';
import { isLoopbackHost } from '../policy/secure-url.ts';
import { preferredSecretMethod } from './grants/client-auth.ts';

type Http = OAuthRequestOptions;

/** Credentials issued to this client out of band, for one authorization server or for any. */
export interface PreRegisteredClient {
  readonly clientId: string;
  readonly clientSecret?: string;
  /** Default: `client_secret_basic` with a secret (the RFC 8414 default), `none` without. */
  readonly tokenEndpointAuthMethod?: string;
}

/** What dynamic registration sends (RFC 7591 names); the OAuth client fills what is not given. */
export interface ClientMetadata {
  readonly client_name?: string;
  readonly client_uri?: string;
  readonly logo_uri?: string;
  readonly redirect_uris?: readonly string[];
  /** Default: `authorization_code` and `refresh_token`. */
  readonly grant_types?: readonly string[];
  readonly response_types?: readonly string[];
  /** Default: `native` for loopback or private-scheme redirect URIs, else `web`. */
  readonly application_type?: 'native' | 'web';
  readonly token_endpoint_auth_method?: string;
  readonly scope?: string;
  readonly software_id?: string;
  readonly software_version?: string;
  readonly jwks_uri?: string;
  readonly jwks?: { readonly keys: readonly Record<string, unknown>[] };
}

export interface RegistrationOptions {
  readonly preRegistered?: PreRegisteredClient | ((issuer: string) => PreRegisteredClient | undefined) | undefined;
  readonly clientMetadataUrl?: string | undefined;
  readonly clientMetadata: ClientMetadata;
  readonly clientAuthentication?: ((client: ClientRegistration, as: oauth.AuthorizationServer) => oauth.ClientAuth | undefined) | undefined;
}

export interface SettledClient {
  readonly registration: ClientRegistration;
  readonly client: oauth.Client;
  readonly clientAuth: oauth.ClientAuth;
  /** Where it came from (a dynamic registration the server forgot may be redone). */
  readonly source: 'pre-registered' | 'metadata-document' | 'stored' | 'registered';
}

/** Methods this client can use itself, in the order it prefers them. */
const OWN_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;

export async function settleClient(as: oauth.AuthorizationServer, store: OAuthStore, options: RegistrationOptions, http: Http): Promise<SettledClient> {
  const pre = typeof options.preRegistered === 'function' ? options.preRegistered(as.issuer) : options.preRegistered;
  if (pre !== undefined) {
    return settled(as, options, { clientId: pre.clientId, clientSecret: pre.clientSecret, tokenEndpointAuthMethod: pre.tokenEndpointAuthMethod }, 'pre-registered');
  }
  if (options.clientMetadataUrl !== undefined && as.client_id_metadata_document_supported === true) {
    return settled(as, options, { clientId: options.clientMetadataUrl, tokenEndpointAuthMethod: 'none' }, 'metadata-document');
  }
  const stored = await store.loadClient(as.issuer);
  if (stored !== undefined && !expired(stored)) return settled(as, options, stored, 'stored');
  if (typeof as.registration_endpoint !== 'string') {
    throw new AuthorizationError(
      'registration',
      `${as.issuer} offers no dynamic registration and this client has no credentials for it${options.clientMetadataUrl === undefined ? '' : ' (and it does not accept client metadata documents)'}`,
    );
  }
  const registration = await register(as, options.clientMetadata, http);
  await store.saveClient(as.issuer, registration);
  return settled(as, options, registration, 'registered');
}

async function register(as: oauth.AuthorizationServer, metadata: ClientMetadata, http: Http): Promise<ClientRegistration> {
  const offered = as.token_endpoint_auth_methods_supported;
  const method = metadata.token_endpoint_auth_method ?? (Array.isArray(offered) ? OWN_METHODS.find((name) => offered.includes(name)) : 'none');
  const body: Record<string, unknown> = {
    ...metadata,
    grant_types: metadata.grant_types ?? ['authorization_code', 'refresh_token'],
    response_types: metadata.response_types ?? ['code'],
    application_type: metadata.application_type ?? applicationType(metadata.redirect_uris ?? []),
    ...(method === undefined ? {} : { token_endpoint_auth_method: method }),
  };
  let answer: oauth.OmitSymbolProperties<oauth.Client>;
  try {
    const response = await oauth.dynamicClientRegistrationRequest(as, body as Partial<oauth.OmitSymbolProperties<oauth.Client>>, http);
    answer = await oauth.processDynamicClientRegistrationResponse(await withSecretExpiry(response));
  } catch (error) {
    if (error instanceof AuthorizationError) throw error;
    throw new AuthorizationError('registration', `dynamic registration at ${as.issuer} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const secret = typeof answer['client_secret'] === 'string' ? answer['client_secret'] : undefined;
  const answeredMethod = typeof answer['token_endpoint_auth_method'] === 'string' ? answer['token_endpoint_auth_method'] : undefined;
  const expiresAt = typeof answer['client_secret_expires_at'] === 'number' ? answer['client_secret_expires_at'] : undefined;
  return { clientId: answer.client_id, clientSecret: secret, tokenEndpointAuthMethod: answeredMethod ?? method, clientSecretExpiresAt: expiresAt };
}

/**
 * RFC 7591 requires `client_secret_expires_at` with a secret; servers that leave it out mean "never" (0), which is
 * how the official SDKs read it. Added to the answer's JSON when missing, before oauth4webapi validates the rest.
 */
async function withSecretExpiry(response: Response): Promise<Response> {
  if (response.status !== 201) return response;
  let json: unknown;
  try {
    json = await response.clone().json();
  } catch {
    return response;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return response;
  const fields = json as Record<string, unknown>;
  if (fields['client_secret'] === undefined || fields['client_secret_expires_at'] !== undefined) return response;
  return new Response(JSON.stringify({ ...fields, client_secret_expires_at: 0 }), { status: response.status, headers: response.headers });
}

/** RFC 8252: loopback and private-use scheme redirects are a native application's; anything else a web one's. */
function applicationType(redirectUris: readonly string[]): 'native' | 'web' {
  return redirectUris.every((uri) => {
    try {
      const url = new URL(uri);
      return url.protocol !== 'https:' && (url.protocol !== 'http:' || isLoopbackHost(url.hostname));
    } catch {
      return false;
    }
  })
    ? 'native'
    : 'web';
}

function expired(registration: ClientRegistration): boolean {
  const at = registration.clientSecretExpiresAt;
  return at !== undefined && at !== 0 && at * 1000 <= Date.now();
}

function settled(as: oauth.AuthorizationServer, options: RegistrationOptions, registration: ClientRegistration, source: SettledClient['source']): SettledClient {
  const own = options.clientAuthentication?.(registration, as);
  const clientAuth = own ?? standardAuth(as, registration);
  return { registration, client: { client_id: registration.clientId }, clientAuth, source };
}

function standardAuth(as: oauth.AuthorizationServer, registration: ClientRegistration): oauth.ClientAuth {
  const secret = registration.clientSecret;
  const method = registration.tokenEndpointAuthMethod ?? (secret === undefined ? 'none' : preferredSecretMethod(as));
  switch (method) {
    case 'none':
      return oauth.None();
    case 'client_secret_basic':
    case 'client_secret_post':
      if (secret === undefined) throw new AuthorizationError('registration', `${method} needs a client secret and ${as.issuer} gave none`);
      return method === 'client_secret_basic' ? clientSecretBasic(secret) : oauth.ClientSecretPost(secret);
    default:
      throw new AuthorizationError('registration', `token endpoint authentication ${JSON.stringify(method)} needs the clientAuthentication option`);
  }
}
