/**
 * One token endpoint exchange as every grant here makes it: send, then read the answer with oauth4webapi, and
 * when a DPoP-constrained request is refused with `use_dpop_nonce` (RFC 9449 §8) send it once more. The DPoP
 * handle has already kept the nonce from the refusal, so the second proof carries it; a second refusal is final.
 */
import * as oauth from 'oauth4webapi';
import type { GrantContext } from '../grant.ts';

/** Token types a grant accepts besides `bearer` and `dpop` (lower case, as oauth4webapi reports them). */
export type TokenTypeCheck = oauth.RecognizedTokenTypes;

export async function exchange(
  context: { readonly as: oauth.AuthorizationServer; readonly client: oauth.Client; readonly dpop: oauth.DPoPHandle | undefined },
  send: () => Promise<Response>,
  recognizedTokenTypes?: TokenTypeCheck,
): Promise<oauth.TokenEndpointResponse> {
  const read = async (): Promise<oauth.TokenEndpointResponse> =>
    oauth.processGenericTokenEndpointResponse(
      context.as,
      context.client,
      await send(),
      recognizedTokenTypes === undefined ? {} : { recognizedTokenTypes },
    );
  try {
    return await read();
  } catch (error) {
    if (context.dpop !== undefined && oauth.isDPoPNonceError(error)) return read();
    throw error;
  }
}

/** The request options of a token endpoint call: the flow's HTTP options and the DPoP handle when there is one. */
export function requestOptions(context: Pick<GrantContext, 'dpop' | 'http'>): oauth.TokenEndpointRequestOptions {
  return context.dpop === undefined ? { ...context.http } : { ...context.http, DPoP: context.dpop };
}

/** `resource` and `scope` as the token request carries them (RFC 8707; absent values are left out). */
export function targetParameters(context: Pick<GrantContext, 'resource' | 'scope'>): URLSearchParams {
  const parameters = new URLSearchParams();
  if (context.resource !== undefined) parameters.set('resource', context.resource);
  if (context.scope !== undefined && context.scope !== '') parameters.set('scope', context.scope);
  return parameters;
}
