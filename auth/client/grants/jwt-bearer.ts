/**
 * The JWT bearer grant (RFC 7523 §2.1) for workload identity federation (MCP's SEP-1933): a workload presents a
 * JWT its platform issued (Kubernetes, a cloud's metadata service, a CI system) as the `assertion`, with no
 * client secret and no registration. A refusal (`invalid_grant`, `invalid_scope`, `unauthorized_client`, or any
 * other) is final: the grant is marked so, and the flow neither retries it nor falls back to another grant.
 */
import * as oauth from 'oauth4webapi';
import type { GrantContext } from '../grant.ts';
import { type ClientGrant, clientGrant } from './client-grant.ts';
import { exchange, requestOptions, targetParameters } from './token-request.ts';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface JwtBearerOptions {
  /** The `client_id` the authorization server knows the workload by (sent in the body; token endpoint auth `none`). */
  readonly clientId: string;
  /** The assertion, or a function that fetches a fresh one for each token request (platform tokens expire). */
  readonly assertion: string | ((context: GrantContext) => string | Promise<string>);
}

export function jwtBearer(options: JwtBearerOptions): ClientGrant {
  const client: oauth.Client = { client_id: options.clientId, token_endpoint_auth_method: 'none' };
  const grant = async (context: GrantContext): Promise<oauth.TokenEndpointResponse> => {
    const assertion = typeof options.assertion === 'string' ? options.assertion : await options.assertion(context);
    const parameters = targetParameters(context);
    parameters.set('assertion', assertion);
    return exchange({ as: context.as, client, dpop: context.dpop }, () =>
      oauth.genericTokenEndpointRequest(context.as, client, oauth.None(), JWT_BEARER_GRANT, parameters, requestOptions(context)),
    );
  };
  return clientGrant(grant, { clientId: options.clientId, grantType: JWT_BEARER_GRANT, final: true });
}
