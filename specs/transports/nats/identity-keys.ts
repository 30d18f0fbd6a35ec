/** Gateway key pairs for the identity specs: Ed25519 JWKs made by jose, private and public halves apart. */
import { type JWK, exportJWK, generateKeyPair } from 'jose';

export interface GatewayKeys {
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
}

export async function gatewayKeys(kid: string): Promise<GatewayKeys> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { extractable: true });
  return { privateJwk: { ...(await exportJWK(privateKey)), kid, alg: 'EdDSA' }, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA' } };
}
