/**
 * Opaque tokens: asked about at the authorization server's introspection endpoint (RFC 7662), with oauth4webapi
 * and this resource's own client credentials. An answer counts only when it is `active`, names a trusted issuer
 * (or none, with a single one trusted), names this resource among its audiences when it names any, and has not
 * expired. Answers are cached like verified JWTs (for a shorter time by default: revocation shows sooner).
 */
import * as oauth from 'oauth4webapi';
import type { AuthInfo } from '../core/auth.ts';
import { authInfoOf } from './claims.ts';
import type { TrustedIssuer } from './issuers.ts';

export interface IntrospectionOptions {
  /** This resource server's client id at the authorization server. */
  readonly clientId: string;
  /** Its secret (sent with HTTP Basic, `client_secret_basic`). */
  readonly clientSecret: string;
  /** The endpoint, when not discovered from the (single) authorization server's metadata. */
  readonly endpoint?: string;
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
  }

  async introspect(token: string): Promise<AuthInfo> {
    const issuer = this.issuers[0] as TrustedIssuer;
    const discovered = this.options.endpoint === undefined ? await issuer.discover() : undefined;
    const as: oauth.AuthorizationServer = discovered ?? { issuer: issuer.issuer, introspection_endpoint: this.options.endpoint as string };
    if (as.introspection_endpoint === undefined) throw new IntrospectionProblem('the authorization server offers no introspection endpoint');
    const insecure = new URL(as.introspection_endpoint).protocol === 'http:';
    const client: oauth.Client = { client_id: this.options.clientId };
    const response = await oauth.introspectionRequest(as, client, oauth.ClientSecretBasic(this.options.clientSecret), token, insecure ? { [oauth.allowInsecureRequests]: true } : {});
    const answer = await oauth.processIntrospectionResponse(as, client, response);
    if (answer.active !== true) throw new IntrospectionProblem('the token is not active');
    if (answer.iss !== undefined && answer.iss !== issuer.issuer) throw new IntrospectionProblem('the token was not issued by an authorization server this resource trusts');
    const aud = answer.aud === undefined ? undefined : Array.isArray(answer.aud) ? answer.aud : [answer.aud];
    if (aud !== undefined && !aud.some((entry) => this.audience.includes(entry))) throw new IntrospectionProblem('the token is not for this resource (audience)');
    if (typeof answer.exp === 'number' && answer.exp * 1000 <= this.now()) throw new IntrospectionProblem('the token expired');
    const auth = authInfoOf({ ...answer, iss: answer.iss ?? issuer.issuer }, this.qualify);
    if (auth === undefined) throw new IntrospectionProblem('the token names neither a subject nor a client');
    return auth;
  }
}

/** A refusal reason safe to show the caller. */
export class IntrospectionProblem extends Error {}
