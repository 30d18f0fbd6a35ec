/**
 * Enterprise-managed authorization (MCP's SEP-990, "cross-app access"): the user signed in to the enterprise's
 * identity provider once; the client exchanges that identity (an ID token, RFC 8693 token exchange) at the IdP
 * for an Identity Assertion JWT Authorization Grant (ID-JAG) naming the MCP server's authorization server and
 * resource, then presents the ID-JAG to that authorization server in a JWT bearer grant (RFC 7523). No browser,
 * no consent screen: the IdP's policy decides. Both refusals are final.
 */
import * as oauth from 'oauth4webapi';
import type { GrantContext } from '../grant.ts';
import { type ClientCredentialsOptions, clientAuthentication, type PublicClientIdentity } from './client-auth.ts';
import { type ClientGrant, clientGrant } from './client-grant.ts';
import { JWT_BEARER_GRANT } from './jwt-bearer.ts';
import { exchange, requestOptions, targetParameters } from './token-request.ts';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';

export interface EnterpriseManagedOptions {
  /** The enterprise identity provider: its issuer, and its token endpoint (discovered from the issuer when absent). */
  readonly idp: { readonly issuer: string; readonly tokenEndpoint?: string };
  /** This client as the IdP knows it (a public client's `clientId`, or a secret or key). */
  readonly idpClient: ClientCredentialsOptions | PublicClientIdentity;
  /** The user's identity at the IdP: an ID token by default, or a function returning a fresh one. */
  readonly subjectToken: string | ((context: GrantContext) => string | Promise<string>);
  /** The subject token's type (default `urn:ietf:params:oauth:token-type:id_token`; a SAML assertion's otherwise). */
  readonly subjectTokenType?: string;
  /** This client as the MCP server's authorization server knows it (it must be pre-registered there). */
  readonly client: ClientCredentialsOptions;
}

export function enterpriseManaged(options: EnterpriseManagedOptions): ClientGrant {
  const idpClient: oauth.Client = { client_id: options.idpClient.clientId };
  const authenticateAtIdp = clientAuthentication(options.idpClient);
  const client: oauth.Client = { client_id: options.client.clientId };
  const authenticate = clientAuthentication(options.client);
  let idpMetadata: Promise<oauth.AuthorizationServer> | undefined;

  const grant = async (context: GrantContext): Promise<oauth.TokenEndpointResponse> => {
    // Step 1, at the IdP: the user's identity for an ID-JAG addressed to this authorization server and resource.
    idpMetadata ??= identityProvider(options.idp, context.http);
    const idp = await idpMetadata.catch((error: unknown) => {
      idpMetadata = undefined;
      throw error;
    });
    const subjectToken = typeof options.subjectToken === 'string' ? options.subjectToken : await options.subjectToken(context);
    const request = targetParameters(context);
    request.set('requested_token_type', ID_JAG_TOKEN_TYPE);
    request.set('audience', context.as.issuer);
    request.set('subject_token', subjectToken);
    request.set('subject_token_type', options.subjectTokenType ?? ID_TOKEN_TYPE);
    const idpAuth = await authenticateAtIdp(idp);
    const issued = await exchange(
      { as: idp, client: idpClient, dpop: undefined },
      () => oauth.genericTokenEndpointRequest(idp, idpClient, idpAuth, TOKEN_EXCHANGE_GRANT, request, { ...context.http }),
      // An ID-JAG is no access token: RFC 8693 gives it the token type N_A.
      { n_a: () => undefined },
    );
    if (issued['issued_token_type'] !== ID_JAG_TOKEN_TYPE) {
      throw new Error(`the identity provider issued ${String(issued['issued_token_type'])}, not an ID-JAG`);
    }

    // Step 2, at the MCP server's authorization server: the ID-JAG as a JWT bearer grant.
    const parameters = targetParameters(context);
    parameters.set('assertion', issued.access_token);
    const clientAuth = await authenticate(context.as);
    return exchange({ as: context.as, client, dpop: context.dpop }, () =>
      oauth.genericTokenEndpointRequest(context.as, client, clientAuth, JWT_BEARER_GRANT, parameters, requestOptions(context)),
    );
  };
  return clientGrant(grant, { clientId: options.client.clientId, grantType: JWT_BEARER_GRANT, final: true });
}

/** The IdP as oauth4webapi needs it: given, or from its OpenID configuration (issuer checked). */
async function identityProvider(
  idp: EnterpriseManagedOptions['idp'],
  http: GrantContext['http'],
): Promise<oauth.AuthorizationServer> {
  if (idp.tokenEndpoint !== undefined) return { issuer: idp.issuer, token_endpoint: idp.tokenEndpoint };
  const issuer = new URL(idp.issuer);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...http, algorithm: 'oidc' }));
}
