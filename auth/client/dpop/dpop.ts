/**
 * DPoP (RFC 9449) on the client: one key pair per client, proofs made by oauth4webapi's DPoP handle on every
 * token request (the grants pass the handle) and on every MCP HTTP request (`headersFor`), and the nonces servers
 * demand (`DPoP-Nonce`, `use_dpop_nonce`) remembered per origin. The OAuth provider calls into this from its
 * `headersFor`, `challenged` and `observe`; the transport never sees DPoP.
 *
 * Proofs for MCP requests come from the handle too: `protectedResourceRequest` is given a fetch that sends
 * nothing and hands back the headers it was asked to send (`Authorization: DPoP <token>` and the proof, with
 * `ath`, a fresh `jti`, `htm` and `htu`). A resource server's nonce is kept here and written into proofs that
 * carry an access token hash (resource requests) just before signing; the handle keeps the authorization
 * server's nonces itself.
 */
import * as oauth from 'oauth4webapi';
import type { AuthorizedRequest, AuthResponse } from '../../../transports/http/client/auth-port.ts';
import { isNonceChallenge } from './challenge.ts';

/** The proof algorithms a generated key can have, in the order this client prefers them. */
export type DPoPAlgorithm = 'ES256' | 'Ed25519' | 'ES384' | 'PS256' | 'RS256';
const PREFERENCE: readonly DPoPAlgorithm[] = ['ES256', 'Ed25519', 'ES384', 'PS256', 'RS256'];

export interface DPoPOptions {
  /** The key pair to sign proofs with (the public key extractable). Generated when absent, the private key then non-extractable. */
  readonly keyPair?: oauth.CryptoKeyPair;
  /** A generated key's algorithm; default the first of ES256, Ed25519, ES384, PS256, RS256 that the server lists. */
  readonly algorithm?: DPoPAlgorithm;
}

export interface DPoPBinding {
  /** The handle grants pass to token requests; the key is generated on first use, fitting the server's algorithms. */
  handle(as?: oauth.AuthorizationServer): Promise<oauth.DPoPHandle>;
  /** `Authorization: DPoP <token>` and a fresh `DPoP` proof for one request. */
  headersFor(accessToken: string, request: AuthorizedRequest): Promise<Readonly<Record<string, string>>>;
  /** Keeps a fresh `DPoP-Nonce` from any response (servers may rotate it on successes). */
  observe(response: AuthResponse): void;
  /** True when the response is a `use_dpop_nonce` challenge with a new nonce: send the request again. */
  challenged(response: AuthResponse): Promise<boolean>;
}

/** Resource servers whose nonce is remembered; the oldest is forgotten beyond this. */
const MAX_NONCES = 100;

export function dpop(options: DPoPOptions = {}): DPoPBinding {
  /** The nonce each resource server asked for last, and the one our latest proof to it carried. */
  const nonces = new Map<string, string>();
  const sent = new Map<string, string>();
  let made: Promise<oauth.DPoPHandle> | undefined;

  const remember = (map: Map<string, string>, origin: string, nonce: string): void => {
    map.delete(origin);
    if (map.size >= MAX_NONCES) map.delete(map.keys().next().value as string);
    map.set(origin, nonce);
  };

  const handle = (as?: oauth.AuthorizationServer): Promise<oauth.DPoPHandle> => {
    made ??= (async () => {
      const keyPair = options.keyPair ?? (await oauth.generateKeyPair(options.algorithm ?? algorithmFor(as)));
      return oauth.DPoP({}, keyPair, {
        [oauth.modifyAssertion]: (_header, payload) => {
          // Only resource requests carry `ath`; token requests keep the nonce the handle learnt from the server.
          if (payload['ath'] === undefined || typeof payload['htu'] !== 'string') return;
          const origin = new URL(payload['htu']).origin;
          const nonce = nonces.get(origin);
          if (nonce === undefined) return;
          payload['nonce'] = nonce;
          remember(sent, origin, nonce);
        },
      });
    })();
    made.catch(() => {
      made = undefined;
    });
    return made;
  };

  return {
    handle,
    async headersFor(accessToken, request) {
      const proofHandle = await handle();
      let sent: Headers | undefined;
      await oauth.protectedResourceRequest(accessToken, request.method, request.url, undefined, undefined, {
        DPoP: proofHandle,
        // Nothing is fetched here: the transport sends the request, under its own URL rules.
        [oauth.allowInsecureRequests]: true,
        [oauth.customFetch]: (_url, init) => {
          sent = new Headers(init.headers);
          return Promise.resolve(new Response(null, { status: 204 }));
        },
      });
      const authorization = sent?.get('authorization');
      const proof = sent?.get('dpop');
      if (authorization == null || proof == null) throw new Error('no DPoP proof was made');
      return { authorization, dpop: proof };
    },
    observe(response) {
      const nonce = response.header('dpop-nonce');
      if (nonce !== undefined && nonce !== '') remember(nonces, response.url.origin, nonce);
    },
    async challenged(response) {
      const nonce = response.header('dpop-nonce');
      if (response.status !== 401 || nonce === undefined || nonce === '') return false;
      if (!isNonceChallenge(response.header('www-authenticate'))) return false;
      remember(nonces, response.url.origin, nonce);
      // A server naming the nonce our last proof already carried is refusing for another reason: no retry for that.
      return sent.get(response.url.origin) !== nonce;
    },
  };
}

function algorithmFor(as: oauth.AuthorizationServer | undefined): DPoPAlgorithm {
  const offered = as?.dpop_signing_alg_values_supported;
  if (offered === undefined || offered.length === 0) return 'ES256';
  const chosen = PREFERENCE.find((algorithm) => offered.includes(algorithm) || (algorithm === 'Ed25519' && offered.includes('EdDSA')));
  if (chosen === undefined) throw new Error(`the authorization server offers no DPoP algorithm this client can use (${offered.join(', ')})`);
  return chosen;
}
