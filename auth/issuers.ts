/**
 * The authorization servers a resource trusts, each with its signing keys: a JWKS fetched and cached by jose
 * (`createRemoteJWKSet`: refetched on an unknown `kid`, with a cooldown), found at the configured `jwksUri` or
 * in the server's metadata (RFC 8414, then OpenID Connect discovery, via oauth4webapi, which checks that the
 * document names the issuer it was fetched for).
 */
import { type JWTVerifyGetKey, createRemoteJWKSet } from 'jose';
import * as oauth from 'oauth4webapi';
import { insecureUrlReason } from './policy/secure-url.ts';

export interface IssuerOptions {
  /** Where the keys are, when not discovered (only with a single authorization server). */
  readonly jwksUri?: string | undefined;
  /** Lets metadata, keys and introspection use plain http to loopback hosts (tests, local development). */
  readonly allowLoopbackHttp: boolean;
}

export class TrustedIssuer {
  private keys: JWTVerifyGetKey | undefined;
  private metadata: Promise<oauth.AuthorizationServer> | undefined;

  constructor(
    readonly issuer: string,
    private readonly options: IssuerOptions,
  ) {}

  /** The server's metadata, discovered once (a failed discovery is tried again on the next call). */
  discover(): Promise<oauth.AuthorizationServer> {
    this.metadata ??= this.fetchMetadata().catch((error: unknown) => {
      this.metadata = undefined;
      throw error;
    });
    return this.metadata;
  }

  /** The key lookup jose verifies against. */
  async keySet(): Promise<JWTVerifyGetKey> {
    if (this.keys !== undefined) return this.keys;
    const uri = this.options.jwksUri ?? (await this.discover()).jwks_uri;
    if (uri === undefined) throw new Error(`the authorization server ${this.issuer} publishes no jwks_uri`);
    const url = new URL(uri);
    this.checkTransport(url);
    this.keys ??= createRemoteJWKSet(url);
    return this.keys;
  }

  private async fetchMetadata(): Promise<oauth.AuthorizationServer> {
    const url = new URL(this.issuer);
    this.checkTransport(url);
    const insecure = url.protocol === 'http:';
    const base = insecure ? { [oauth.allowInsecureRequests]: true } : {};
    let lastError: unknown;
    for (const algorithm of ['oauth2', 'oidc'] as const) {
      try {
        const response = await oauth.discoveryRequest(url, { ...base, algorithm });
        return await oauth.processDiscoveryResponse(url, response);
      } catch (error) {
        lastError = error;
      }
    }
    throw new Error(`the metadata of the authorization server ${this.issuer} could not be read`, { cause: lastError });
  }

  /** Metadata, keys and the introspection endpoint follow the kit's one transport rule (auth/policy). */
  checkTransport(url: URL): void {
    const problem = insecureUrlReason(url, this.options.allowLoopbackHttp);
    if (problem !== undefined) throw new Error(problem);
  }
}
