/**
 * Opaque tokens: asked about at the authorization server's introspection endpoint (RFC 7662), with oauth4webapi
 * and this resource's own client credentials (`client_secret_basic`, the kit's one encoder). The endpoint, like
 * metadata and keys, is HTTPS (plain http only to a loopback host with `allowLoopbackHttp`): the token and the
 * secret never go to anything else. An answer counts only when it is `active`, names a trusted issuer (or none,
 * with a single one trusted), names this resource among its audiences (an answer without `aud` only with
 * `requireAudience: false`), and has not expired. Answers are cached like verified JWTs (for a shorter time by
 * default: revocation shows sooner).
 */
import * as oauth from 'oauth4webapi';
import type { AuthInfo } from '../core/auth.ts';
import { authInfoOf } from './claims.ts';
import type { TrustedIssuer } from './issuers.ts';
import { clientSecretBasic } from './policy/client-secret-basic.ts';

export interface IntrospectionOptions {
  /** This resource server's client id at the authorization server. */
  readonly clientId: string;
  /** Its secret (sent with HTTP Basic, `client_secret_basic`). */
  readonly clientSecret: string;
  /** The endpoint, when not discovered from the (single) authorization server's metadata. */
  readonly endpoint?: string;
  /**
   * Refuse answers that name no audience (default true: a token the authorization server does not say is for
   * this resource may be for any). False takes them, for servers that leave `aud` out; a wrong `aud` is
   * refused either way.
   */
  readonly requireAudience?: boolean;
}

export class Introspector {
  constructor(
    private readonly options: IntrospectionOptions,
    private readonly issuers: readonly TrustedIssuer[],
    private readonly audience: readonly string[],
    private readonly qualify: boolean,
    private readonly now: () => number,
  ) {
    if (issuers.length !== 1) throw new TypeError('introspection asks one authorization server: configure exactly one');
    // A configured endpoint is judged now: a mistake shows when the server starts, not on the first token.
    if (options.endpoint !== undefined) {
      try {
        this.issuer.checkTransport(new URL(options.endpoint));
      } catch (error) {
        throw new TypeError(`introspection.endpoint: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  private get issuer(): TrustedIssuer {
    return this.issuers[0] as TrustedIssuer;
  }

  async introspect(token: string): Promise<AuthInfo> {
    const issuer = this.issuer;
    const discovered = this.options.endpoint === undefined ? await issuer.discover() : undefined;
    const as: oauth.AuthorizationServer = discovered ?? { issuer: issuer.issuer, introspection_endpoint: this.options.endpoint as string };
    if (as.introspection_endpoint === undefined) throw new IntrospectionProblem('the authorization server offers no introspection endpoint');
    const endpoint = new URL(as.introspection_endpoint);
    try {
      issuer.checkTransport(endpoint);
    } catch {
      throw new IntrospectionProblem('the token could not be verified (the introspection endpoint is not https)');
    }
    const client: oauth.Client = { client_id: this.options.clientId };
    const insecure = endpoint.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
    const response = await oauth.introspectionRequest(as, client, clientSecretBasic(this.options.clientSecret), token, insecure);
    const answer = await oauth.processIntrospectionResponse(as, client, response);
    if (answer.active !== true) throw new IntrospectionProblem('the token is not active');
    if (answer.iss !== undefined && answer.iss !== issuer.issuer) throw new IntrospectionProblem('the token was not issued by an authorization server this resource trusts');
    const aud = answer.aud === undefined ? undefined : Array.isArray(answer.aud) ? answer.aud : [answer.aud];
    if (aud === undefined && this.options.requireAudience !== false) throw new IntrospectionProblem('the token names no audience (the introspection answer has no aud)');
    if (aud !== undefined && !aud.some((entry) => this.audience.includes(entry))) throw new IntrospectionProblem('the token is not for this resource (audience)');
    if (typeof answer.exp === 'number' && answer.exp * 1000 <= this.now()) throw new IntrospectionProblem('the token expired');
    const auth = authInfoOf({ ...answer, iss: answer.iss ?? issuer.issuer }, this.qualify);
    if (auth === undefined) throw new IntrospectionProblem('the token names neither a subject nor a client');
    return auth;
  }
}

/** A refusal reason safe to show the caller. */
export class IntrospectionProblem extends Error {}
