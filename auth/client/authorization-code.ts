/**
 * The default grant: authorization code with PKCE S256 (OAuth 2.1), the RFC 8707 `resource` on both legs, the
 * authorization response checked by oauth4webapi (state; `iss` per RFC 9207, compared as a plain string, required
 * when the server advertises it). The interactive step is the program's: `onAuthorizationUrl` gets the URL to
 * open and answers with the redirect it came back on (or its parameters).
 */
import * as oauth from 'oauth4webapi';
import { AuthorizationError } from './errors.ts';
import type { Grant, GrantContext } from './grant.ts';
import { assertSecureUrl } from './http.ts';

/** The authorization response: the URL the browser was redirected to, or its parameters. */
export type AuthorizationResult =
  | string
  | URL
  | { readonly code: string; readonly state?: string | undefined; readonly iss?: string | undefined }
  | { readonly error: string; readonly error_description?: string | undefined; readonly state?: string | undefined; readonly iss?: string | undefined };

/** Sends the user to `url` (a browser, a printed link) and resolves with where the authorization server sent them back. */
export type AuthorizationUrlHandler = (url: URL) => Promise<AuthorizationResult>;

export interface AuthorizationCodeOptions {
  readonly redirectUri: string;
  readonly onAuthorizationUrl: AuthorizationUrlHandler;
}

export function authorizationCodeGrant(options: AuthorizationCodeOptions): Grant {
  return async (context) => {
    const { as, client } = context;
    const methods = as.code_challenge_methods_supported;
    if (Array.isArray(methods) && !methods.includes('S256')) {
      throw new AuthorizationError('insecure-server', `${as.issuer} does not support PKCE with S256 (it lists ${JSON.stringify(methods)})`);
    }
    if (typeof as.authorization_endpoint !== 'string') throw new AuthorizationError('server-metadata', `${as.issuer} has no authorization endpoint`);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = assertSecureUrl(as.authorization_endpoint, 'the authorization endpoint');
    const query = url.searchParams;
    query.set('response_type', 'code');
    query.set('client_id', client.client_id);
    query.set('redirect_uri', options.redirectUri);
    query.set('state', state);
    query.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    query.set('code_challenge_method', 'S256');
    if (context.scope !== undefined) query.set('scope', context.scope);
    if (context.resource !== undefined) query.set('resource', context.resource);

    let result: AuthorizationResult;
    try {
      result = await options.onAuthorizationUrl(url);
    } catch (error) {
      throw new AuthorizationError('interaction', `the authorization step did not complete: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    let parameters: URLSearchParams;
    try {
      parameters = oauth.validateAuthResponse(as, client, callbackParameters(result), state);
    } catch (error) {
      throw new AuthorizationError('authorization-response', `the authorization response from ${as.issuer} was refused: ${describe(error)}`, { cause: error });
    }
    return exchangeCode(context, parameters, options.redirectUri, verifier);
  };
}

async function exchangeCode(context: GrantContext, parameters: URLSearchParams, redirectUri: string, verifier: string): Promise<oauth.TokenEndpointResponse> {
  const { as, client } = context;
  const send = async (): Promise<oauth.TokenEndpointResponse> => {
    const response = await oauth.authorizationCodeGrantRequest(as, client, context.clientAuth, parameters, redirectUri, verifier, {
      ...context.http,
      ...(context.resource === undefined ? {} : { additionalParameters: { resource: context.resource } }),
      ...(context.dpop === undefined ? {} : { DPoP: context.dpop }),
    });
    return oauth.processAuthorizationCodeResponse(as, client, response);
  };
  try {
    // A `use_dpop_nonce` refusal (RFC 9449 §8): the handle kept the nonce; the same request once more carries it.
    return await send().catch((error: unknown) => (context.dpop !== undefined && oauth.isDPoPNonceError(error) ? send() : Promise.reject(error)));
  } catch (error) {
    if (error instanceof AuthorizationError) throw error;
    throw new AuthorizationError('token', `the token request to ${as.issuer} failed: ${describe(error)}`, { cause: error });
  }
}

function callbackParameters(result: AuthorizationResult): URLSearchParams {
  if (typeof result === 'string') return new URL(result).searchParams;
  if (result instanceof URL) return result.searchParams;
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(result)) if (typeof value === 'string') parameters.set(name, value);
  return parameters;
}

/** An oauth4webapi error as one line (an OAuth error code and description, or the check that failed). */
export function describe(error: unknown): string {
  if (error instanceof oauth.AuthorizationResponseError) return `${error.error}${error.error_description === undefined ? '' : `: ${error.error_description}`}`;
  if (error instanceof oauth.ResponseBodyError) return `${error.error}${error.error_description === undefined ? '' : `: ${error.error_description}`} (HTTP ${error.status})`;
  return error instanceof Error ? error.message : String(error);
}
