/**
 * `createOAuthClient(options)`: the OAuth 2.1 client of MCP authorization, as the HTTP client transports' `auth`.
 *
 * Headers: the token held for the server (refreshed first when it is about to expire). A refusal: 401 starts (or
 * restarts) the flow — protected-resource metadata, the authorization server's metadata, this client's identity
 * there, a token from the grant; 403 `insufficient_scope` asks again for the union of the scopes held and the
 * ones challenged (step-up). One flow at a time per server: concurrent refusals share it, and requests wait for
 * it instead of going out without a token. `maxAuthorizations` flows in a row without the server accepting a
 * request end in an `AuthorizationError` ('retry-limit'). Tokens are stored per server and per issuer, so a
 * server that moves to another authorization server is authorized there afresh (registration included).
 */
import type * as oauth from 'oauth4webapi';
import * as oauthApi from 'oauth4webapi';
import type { AuthorizedRequest, AuthResponse, HttpClientAuth } from '../../transports/http/client/auth-port.ts';
import { type AuthorizationUrlHandler, authorizationCodeGrant, describe } from './authorization-code.ts';
import { parseChallenges, pickChallenge } from './challenge.ts';
import { type ResourceDiscovery, canonicalResource, discoverAuthorizationServer, discoverResource } from './discovery.ts';
import type { DPoPBinding } from './dpop/dpop.ts';
import { tokenHeaders } from './dpop/present-token.ts';
import { AuthorizationError } from './errors.ts';
import type { Grant, GrantContext } from './grant.ts';
import { isClientGrant, ownClient } from './grants/client-grant.ts';
import { type OAuthHttpOptions, type OAuthRequestOptions, oauthHttp } from './http.ts';
import { type ClientMetadata, type PreRegisteredClient, type SettledClient, settleClient } from './registration.ts';
import type { ClientRegistration } from './store.ts';
import { type OAuthStore, type StoredTokens, type TokenKey, createMemoryOAuthStore } from './store.ts';

export interface OAuthClientOptions extends OAuthHttpOptions {
  /** Where the authorization server sends the user back (registered with it). Needed by the default grant. */
  readonly redirectUri?: string;
  /** The interactive step of the default grant: open the URL, resolve with the redirect it came back on. */
  readonly onAuthorizationUrl?: AuthorizationUrlHandler;
  /** How tokens are obtained once the server is known (default: authorization code with PKCE). */
  readonly grant?: Grant;
  /** Registrations and tokens (default: in memory). */
  readonly store?: OAuthStore;
  /** Credentials this client was given out of band: for every server, or chosen per issuer. */
  readonly preRegistered?: PreRegisteredClient | ((issuer: string) => PreRegisteredClient | undefined);
  /** An HTTPS URL serving this client's metadata document, used as its client id where the server supports it. */
  readonly clientMetadataUrl?: string;
  /** What dynamic registration sends (default: a native client named "rxmcp" with `redirectUri`). */
  readonly clientMetadata?: ClientMetadata;
  /** Token endpoint authentication of a program's own (`private_key_jwt`, ...); undefined: the standard ones. */
  readonly clientAuthentication?: (client: ClientRegistration, as: oauth.AuthorizationServer) => oauth.ClientAuth | undefined;
  /** Scopes to ask for when neither the challenge nor the protected-resource metadata names any. */
  readonly scope?: string;
  /** Ask for `offline_access` (a refresh token) when the authorization server lists it (default true). */
  readonly offlineAccess?: boolean;
  /** Authorizations in a row without the server accepting a request, before giving up (default 3). */
  readonly maxAuthorizations?: number;
  /** Refresh a token this long before it expires (default 60 s). */
  readonly refreshSkewMs?: number;
  /**
   * Sender-constrained tokens (RFC 9449): `dpop()` (a generated key) or `dpop({ keyPair })`. Proofs go on token
   * requests and on every MCP request; nonces from both servers are honoured. None: Bearer tokens.
   */
  readonly dpop?: DPoPBinding;
}

export interface OAuthClient extends HttpClientAuth {
  /** Forgets the tokens held for every server (the store's records included); registrations are kept. */
  signOut(): Promise<void>;
}

/** What the client knows about one MCP server (one resource). */
interface ServerState {
  readonly url: URL;
  discovery: ResourceDiscovery | undefined;
  as: oauth.AuthorizationServer | undefined;
  client: SettledClient | undefined;
  dpop: oauth.DPoPHandle | undefined;
  key: TokenKey | undefined;
  tokens: StoredTokens | undefined;
  flow: Promise<boolean> | undefined;
  refreshing: Promise<void> | undefined;
  /** Flows since the server last accepted a request. */
  attempts: number;
}

const MAX_SERVERS = 256;

export function createOAuthClient(options: OAuthClientOptions = {}): OAuthClient {
  return new McpOAuthClient(options);
}

class McpOAuthClient implements OAuthClient {
  private readonly store: OAuthStore;
  private readonly http: OAuthRequestOptions;
  private readonly grant: Grant | undefined;
  private readonly servers = new Map<string, ServerState>();
  /** Authorization-server metadata by issuer (bounded like the servers). */
  private readonly metadata = new Map<string, oauth.AuthorizationServer>();

  constructor(private readonly options: OAuthClientOptions) {
    this.store = options.store ?? createMemoryOAuthStore();
    this.http = oauthHttp(options);
    if (options.grant !== undefined) this.grant = options.grant;
    else if (options.redirectUri !== undefined && options.onAuthorizationUrl !== undefined) {
      this.grant = authorizationCodeGrant({ redirectUri: options.redirectUri, onAuthorizationUrl: options.onAuthorizationUrl });
    }
    if (options.clientMetadataUrl !== undefined) {
      const url = new URL(options.clientMetadataUrl);
      if (url.protocol !== 'https:' || url.pathname === '/') throw new TypeError('clientMetadataUrl must be an https URL with a path');
    }
  }

  async headersFor(request: AuthorizedRequest): Promise<Readonly<Record<string, string>>> {
    const state = this.stateOf(request.endpoint ?? request.url);
    if (state.flow !== undefined) await state.flow.catch(() => false);
    if (state.tokens !== undefined && this.expiring(state.tokens) && state.tokens.refreshToken !== undefined) {
      state.refreshing ??= this.refresh(state).finally(() => {
        state.refreshing = undefined;
      });
      await state.refreshing;
    }
    const tokens = state.tokens;
    if (tokens === undefined) return {};
    return tokenHeaders({ access_token: tokens.accessToken, token_type: tokens.tokenType }, request, this.options.dpop);
  }

  async challenged(response: AuthResponse): Promise<boolean> {
    // A DPoP nonce demanded by the resource server: the same token again, with a proof carrying it.
    if (this.options.dpop !== undefined && (await this.options.dpop.challenged(response))) return true;
    const state = this.stateOf(response.endpoint ?? response.url);
    if (state.flow !== undefined) return state.flow;
    const flow = this.cure(state, response).finally(() => {
      state.flow = undefined;
    });
    state.flow = flow;
    return flow;
  }

  observe(response: AuthResponse): void {
    this.options.dpop?.observe(response);
    const state = this.servers.get(canonicalResource(response.endpoint ?? response.url).href);
    if (state === undefined) return;
    if (response.status >= 200 && response.status < 300) state.attempts = 0;
  }

  async signOut(): Promise<void> {
    for (const state of this.servers.values()) {
      if (state.key !== undefined) await this.store.deleteTokens(state.key);
      state.tokens = undefined;
    }
  }

  private stateOf(url: URL): ServerState {
    const key = canonicalResource(url).href;
    let state = this.servers.get(key);
    if (state === undefined) {
      state = { url: canonicalResource(url), discovery: undefined, as: undefined, client: undefined, dpop: undefined, key: undefined, tokens: undefined, flow: undefined, refreshing: undefined, attempts: 0 };
      this.servers.set(key, state);
      if (this.servers.size > MAX_SERVERS) {
        for (const [name, old] of this.servers) {
          if (old.flow === undefined && old !== state) {
            this.servers.delete(name);
            break;
          }
        }
      }
    }
    return state;
  }

  private expiring(tokens: StoredTokens): boolean {
    return tokens.expiresAt !== undefined && tokens.expiresAt - (this.options.refreshSkewMs ?? 60_000) <= Date.now();
  }

  /** One answer to a refusal: true when new credentials are there to retry with. */
  private async cure(state: ServerState, response: AuthResponse): Promise<boolean> {
    const challenge = pickChallenge(parseChallenges(response));
    const stepUp = response.status === 403;
    if (stepUp && challenge?.error !== 'insufficient_scope') return false;
    const limit = this.options.maxAuthorizations ?? 3;
    if (state.attempts >= limit) {
      throw new AuthorizationError('retry-limit', `${state.url.href} refused ${limit} authorization(s) in a row; giving up`);
    }
    const rejected = state.tokens;
    // Refused with a token that was replaced since (another refusal's flow got a new one): just send it again.
    if (rejected !== undefined && response.sentWith !== undefined && !sentWithToken(response.sentWith, rejected.accessToken)) return true;
    // Discovery again on every 401: the server may have moved to another authorization server.
    const discovery = await discoverResource(state.url, challenge?.resourceMetadata, this.http);
    const as = await this.serverMetadata(discovery.issuer, discovery.metadata === undefined);
    const key: TokenKey = { resource: discovery.resource ?? state.url.href, issuer: as.issuer };
    const moved = state.key !== undefined && state.key.issuer !== key.issuer;
    state.discovery = discovery;
    if (moved || state.as?.issuer !== as.issuer) {
      state.client = undefined;
      state.tokens = undefined;
      state.dpop = undefined;
    }
    state.as = as;
    state.key = key;
    // A 401 at the same authorization server with a refresh token at hand: a new access token first.
    if (!stepUp && !moved && rejected?.refreshToken !== undefined && state.tokens === rejected) {
      await this.refresh(state);
      if (state.tokens !== undefined && state.tokens !== rejected) {
        state.attempts += 1;
        return true;
      }
    }
    if (!stepUp) {
      // Tokens kept from an earlier run (a persistent store), if they are not the ones just refused.
      const kept = await this.store.loadTokens(key);
      if (kept !== undefined && kept.accessToken !== rejected?.accessToken && !this.expiring(kept)) {
        state.tokens = kept;
        state.attempts += 1;
        return true;
      }
      if (kept !== undefined) await this.store.deleteTokens(key);
    }
    const grant = this.grant;
    if (grant === undefined) {
      throw new AuthorizationError('interaction', `${state.url.href} needs authorization and this OAuth client has no grant (give redirectUri and onAuthorizationUrl, or a grant)`);
    }
    // A grant with its own client identity (client credentials, workload identity, enterprise-managed) registers nothing.
    state.client ??= isClientGrant(grant) ? ownClient(grant) : await settleClient(as, this.store, this.registrationOptions(), this.http);
    state.dpop ??= await this.options.dpop?.handle(as);
    const scope = this.scopeFor(state, as, challenge?.scope, stepUp ? rejected : undefined);
    state.attempts += 1;
    const context: GrantContext = {
      as,
      client: state.client.client,
      clientAuth: state.client.clientAuth,
      resource: discovery.resource,
      scope,
      dpop: state.dpop,
      http: this.http,
    };
    const answer = await grant(context);
    state.tokens = undefined; // a new grant: nothing of the old tokens (their refresh token) carries over
    await this.keep(state, answer, scope);
    return true;
  }

  private async serverMetadata(issuer: string, fallback: boolean): Promise<oauth.AuthorizationServer> {
    const known = this.metadata.get(issuer);
    if (known !== undefined) return known;
    const found = await discoverAuthorizationServer(issuer, this.http, fallback);
    this.metadata.set(issuer, found);
    if (this.metadata.size > MAX_SERVERS) this.metadata.delete(this.metadata.keys().next().value as string);
    return found;
  }

  /**
   * The challenge's scopes, else the protected-resource metadata's, else the configured ones, else none; on
   * step-up the union with those held. `offline_access` only where the authorization server lists it.
   */
  private scopeFor(state: ServerState, as: oauth.AuthorizationServer, challenged: string | undefined, held: StoredTokens | undefined): string | undefined {
    const supported = state.discovery?.metadata?.scopes_supported;
    const base = challenged ?? (Array.isArray(supported) && supported.length > 0 ? supported.join(' ') : undefined) ?? this.options.scope;
    const names = new Set<string>();
    for (const name of (held?.scope ?? '').split(' ')) if (name !== '') names.add(name);
    for (const name of (base ?? '').split(' ')) if (name !== '') names.add(name);
    const listed = Array.isArray(as.scopes_supported) && as.scopes_supported.includes('offline_access');
    if (!listed) names.delete('offline_access');
    else if (names.size > 0 && this.options.offlineAccess !== false && this.wantsRefresh()) names.add('offline_access');
    return names.size === 0 ? undefined : [...names].join(' ');
  }

  private wantsRefresh(): boolean {
    const grants = this.options.clientMetadata?.grant_types;
    return grants === undefined || grants.includes('refresh_token');
  }

  private registrationOptions(): Parameters<typeof settleClient>[2] {
    const redirectUri = this.options.redirectUri;
    return {
      preRegistered: this.options.preRegistered,
      clientMetadataUrl: this.options.clientMetadataUrl,
      clientAuthentication: this.options.clientAuthentication,
      clientMetadata: {
        client_name: 'rxmcp',
        ...(redirectUri === undefined ? {} : { redirect_uris: [redirectUri] }),
        ...this.options.clientMetadata,
      },
    };
  }

  private async keep(state: ServerState, answer: oauth.TokenEndpointResponse, asked: string | undefined): Promise<void> {
    const tokens: StoredTokens = {
      accessToken: answer.access_token,
      tokenType: answer.token_type,
      refreshToken: answer.refresh_token ?? state.tokens?.refreshToken,
      expiresAt: typeof answer.expires_in === 'number' ? Date.now() + answer.expires_in * 1000 : undefined,
      scope: typeof answer.scope === 'string' ? answer.scope : asked,
    };
    state.tokens = tokens;
    if (state.key !== undefined) await this.store.saveTokens(state.key, tokens);
  }

  /** A new access token from the refresh token; on refusal the tokens are dropped (the next 401 authorizes afresh). */
  private async refresh(state: ServerState): Promise<void> {
    const { as, client, tokens } = state;
    if (as === undefined || client === undefined || tokens?.refreshToken === undefined) {
      state.tokens = undefined;
      return;
    }
    const resource = state.discovery?.resource;
    try {
      const response = await oauthApi.refreshTokenGrantRequest(as, client.client, client.clientAuth, tokens.refreshToken, {
        ...this.http,
        ...(resource === undefined ? {} : { additionalParameters: { resource } }),
        ...(state.dpop === undefined ? {} : { DPoP: state.dpop }),
      });
      const answer = await oauthApi.processRefreshTokenResponse(as, client.client, response);
      await this.keep(state, answer, tokens.scope);
    } catch (error) {
      state.tokens = undefined;
      if (state.key !== undefined) await this.store.deleteTokens(state.key);
      if (!(error instanceof oauthApi.ResponseBodyError)) {
        throw new AuthorizationError('token', `refreshing the token at ${as.issuer} failed: ${describe(error)}`, { cause: error });
      }
    }
  }
}

/** Whether the request's Authorization header carried this access token (Bearer or DPoP scheme). */
function sentWithToken(sent: Readonly<Record<string, string>>, accessToken: string): boolean {
  const header = sent['authorization'] ?? sent['Authorization'];
  return header !== undefined && header.slice(header.indexOf(' ') + 1) === accessToken;
}
