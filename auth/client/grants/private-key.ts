/**
 * A client's signing key for `private_key_jwt` (RFC 7523 §2.2) and its assertions: a CryptoKey as is, or a
 * PKCS#8 PEM imported by jose for the named algorithm. The key is imported non-extractable.
 */
import { importPKCS8 } from 'jose';
import type * as oauth from 'oauth4webapi';

/** The JWS algorithms a client key may sign with here. */
export type ClientKeyAlgorithm = 'ES256' | 'ES384' | 'ES512' | 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'EdDSA' | 'Ed25519';

export interface ClientKey {
  /** A PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) or a private CryptoKey. */
  readonly privateKey: string | oauth.CryptoKey;
  /** The algorithm to import a PEM for (default ES256); a CryptoKey's own algorithm decides otherwise. */
  readonly algorithm?: ClientKeyAlgorithm;
  /** The `kid` put in the assertion's header, when the server registered several keys. */
  readonly keyId?: string;
}

export async function importClientKey(key: ClientKey): Promise<oauth.PrivateKey> {
  const cryptoKey = typeof key.privateKey === 'string' ? await importPKCS8(key.privateKey, key.algorithm ?? 'ES256') : key.privateKey;
  if (cryptoKey.type !== 'private') throw new TypeError('the client key must be a private key');
  return key.keyId === undefined ? { key: cryptoKey } : { key: cryptoKey, kid: key.keyId };
}
