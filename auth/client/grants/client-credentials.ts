/**
 * The client credentials grant (OAuth 2.1 §4.2; MCP's SEP-1046 extension) for machine-to-machine callers: the
 * client authenticates with its secret or its key (see client-auth.ts) and asks for a token for the MCP server's
 * resource, with no user involved.
 */
import * as oauth from 'oauth4webapi';
import type { GrantContext } from '../grant.ts';
import { type ClientCredentialsOptions, clientAuthentication } from './client-auth.ts';
import { type ClientGrant, clientGrant } from './client-grant.ts';
import { exchange, requestOptions, targetParameters } from './token-request.ts';

export function clientCredentials(options: ClientCredentialsOptions): ClientGrant {
  const client: oauth.Client = { client_id: options.clientId };
  const authenticate = clientAuthentication(options);
  const grant = async (context: GrantContext): Promise<oauth.TokenEndpointResponse> => {
    const clientAuth = await authenticate(context.as);
    return exchange({ as: context.as, client, dpop: context.dpop }, () =>
      oauth.clientCredentialsGrantRequest(context.as, client, clientAuth, targetParameters(context), requestOptions(context)),
    );
  };
  return clientGrant(grant, { clientId: options.clientId, grantType: 'client_credentials', final: false });
}
