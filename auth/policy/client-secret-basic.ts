/**
 * `client_secret_basic` (RFC 6749 section 2.3.1), the one encoder both sides of the auth kit send a client secret
 * with: the OAuth client at token and revocation endpoints, the resource server at the introspection endpoint.
 *
 * The id and the secret are each form-urlencoded (the WHATWG `application/x-www-form-urlencoded` serializer:
 * alphanumerics and `*-._` stay, a space becomes `+`, everything else `%XX` of its UTF-8 bytes), joined by `:`,
 * then base64-encoded. oauth4webapi's own encoder also escapes `-`, `.`, `_` and `*`; both decode to the same
 * credentials, but servers that compare the Basic credentials without form-decoding them (the conformance
 * suite's mocks among them) refuse that form, so everything here sends this one.
 */
import type * as oauth from 'oauth4webapi';

/** The `Authorization` header value for `clientId` and `clientSecret`. */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  // Form encoding leaves only ASCII, which btoa takes as is.
  return `Basic ${btoa(`${formEncode(clientId)}:${formEncode(clientSecret)}`)}`;
}

/** The oauth4webapi `ClientAuth` that sends `clientSecret` this way. */
export function clientSecretBasic(clientSecret: string): oauth.ClientAuth {
  return (_as, client, _body, headers) => {
    headers.set('authorization', basicAuthorization(client.client_id, clientSecret));
  };
}

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}
