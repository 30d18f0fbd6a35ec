/**
 * The conformance client's authorization extensions: which grant, and whether DPoP, each extension scenario asks
 * for, built from MCP_CONFORMANCE_CONTEXT with rxmcp/auth/client's grants. The OAuth flow itself (401, metadata
 * discovery, the token, the retry) is the same provider every auth scenario uses.
 *
 * - auth/client-credentials-basic, auth/client-credentials-jwt (SEP-1046): client credentials with the given
 *   secret, or with private_key_jwt signed by the given PKCS#8 key;
 * - auth/cross-app-access-complete-flow (0.1.16) = auth/enterprise-managed-authorization (alpha) (SEP-990):
 *   token exchange at the given IdP for an ID-JAG, then the JWT bearer grant with the given client secret;
 * - auth/wif-jwt-bearer (SEP-1933): the JWT bearer grant with the given workload token, client auth none;
 * - auth/dpop, auth/dpop-nonce (SEP-1932): the ordinary authorization code flow with DPoP-bound tokens.
 */
import { clientCredentials, type ClientGrant, type ClientKeyAlgorithm, dpop, type DPoPBinding, enterpriseManaged, jwtBearer } from '../../auth/client/index.ts';

/** What an extension scenario adds to the OAuth provider's options. */
export interface ExtensionAuth {
  readonly grant?: ClientGrant;
  readonly dpop?: DPoPBinding;
}

type Context = Readonly<Record<string, unknown>>;

function text(context: Context, name: string): string {
  const value = context[name];
  if (typeof value !== 'string' || value === '') throw new Error(`MCP_CONFORMANCE_CONTEXT has no ${name}`);
  return value;
}

const KEY_ALGORITHMS: readonly ClientKeyAlgorithm[] = ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA', 'Ed25519'];

function keyAlgorithm(context: Context): ClientKeyAlgorithm {
  const named = context['signing_algorithm'] ?? 'ES256';
  const algorithm = KEY_ALGORITHMS.find((candidate) => candidate === named);
  if (algorithm === undefined) throw new Error(`signing_algorithm ${String(named)} is not one this client signs with`);
  return algorithm;
}

const enterprise = (context: Context): ExtensionAuth => ({
  grant: enterpriseManaged({
    idp: { issuer: text(context, 'idp_issuer'), tokenEndpoint: text(context, 'idp_token_endpoint') },
    idpClient: { clientId: text(context, 'idp_client_id') },
    subjectToken: text(context, 'idp_id_token'),
    client: { clientId: text(context, 'client_id'), clientSecret: text(context, 'client_secret') },
  }),
});

const extensions: Readonly<Record<string, (context: Context) => ExtensionAuth>> = {
  'auth/client-credentials-basic': (context) => ({
    grant: clientCredentials({ clientId: text(context, 'client_id'), clientSecret: text(context, 'client_secret') }),
  }),
  'auth/client-credentials-jwt': (context) => ({
    grant: clientCredentials({ clientId: text(context, 'client_id'), privateKey: text(context, 'private_key_pem'), algorithm: keyAlgorithm(context) }),
  }),
  'auth/cross-app-access-complete-flow': enterprise,
  'auth/enterprise-managed-authorization': enterprise,
  'auth/wif-jwt-bearer': (context) => ({
    grant: jwtBearer({ clientId: text(context, 'client_id'), assertion: text(context, 'valid_jwt') }),
  }),
  'auth/dpop': () => ({ dpop: dpop() }),
  'auth/dpop-nonce': () => ({ dpop: dpop() }),
};

/** The extension a scenario asks for, or undefined for every other scenario. */
export function extensionAuth(scenario: string, context: Context): ExtensionAuth | undefined {
  return extensions[scenario]?.(context);
}
