/**
 * How a pre-registered client authenticates at a token endpoint: a shared secret (`client_secret_basic`, or
 * `client_secret_post` when the server offers only that), a signed assertion (`private_key_jwt`, made by
 * oauth4webapi: iss = sub = client_id, aud = the server's issuer), or nothing but its `client_id` (`none`).
 */
import * as oauth from 'oauth4webapi';
import { clientSecretBasic } from '../../policy/client-secret-basic.ts';
import { type ClientKey, importClientKey } from './private-key.ts';

export interface ClientSecretCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  /** How to send the secret; default `client_secret_basic`, or `client_secret_post` when the server lists only that. */
  readonly method?: 'client_secret_basic' | 'client_secret_post';
}

export interface ClientKeyCredentials extends ClientKey {
  readonly clientId: string;
}

/** A public client: only its `client_id`, sent in the body. */
export interface PublicClientIdentity {
  readonly clientId: string;
}

export type ClientCredentialsOptions = ClientSecretCredentials | ClientKeyCredentials;

/** The ClientAuth for a server, chosen from the credentials (and, for a secret, from the methods the server lists). */
export function clientAuthentication(
  credentials: ClientCredentialsOptions | PublicClientIdentity,
): (as: oauth.AuthorizationServer) => Promise<oauth.ClientAuth> {
  let signingKey: Promise<oauth.PrivateKey> | undefined;
  return async (as) => {
    if ('clientSecret' in credentials) {
      return secretMethod(credentials, as) === 'client_secret_post' ? oauth.ClientSecretPost(credentials.clientSecret) : clientSecretBasic(credentials.clientSecret);
    }
    if ('privateKey' in credentials) {
      signingKey ??= importClientKey(credentials);
      return oauth.PrivateKeyJwt(await signingKey);
    }
    return oauth.None();
  };
}

function secretMethod(options: ClientSecretCredentials, as: oauth.AuthorizationServer): 'client_secret_basic' | 'client_secret_post' {
  return options.method ?? preferredSecretMethod(as);
}

/** `client_secret_basic` (the RFC 8414 default) unless the server lists `client_secret_post` and not it. */
export function preferredSecretMethod(as: oauth.AuthorizationServer): 'client_secret_basic' | 'client_secret_post' {
  const offered = as.token_endpoint_auth_methods_supported;
  return Array.isArray(offered) && !offered.includes('client_secret_basic') && offered.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic';
}
