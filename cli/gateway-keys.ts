/**
 * The key files of identity across NATS, read for the commands: a gateway's private JWK (`gateway
 * --identity-key`), the public JWKs or JWKS of trusted gateways (`--trust-gateway`). A file that is missing, not
 * JSON or not a key is named in the error.
 */
import { readFileSync } from 'node:fs';
import type { JSONWebKeySet, JWK } from 'jose';

function readJson(path: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (error) {
    throw new Error(`cannot read the ${what} file ${JSON.stringify(path)}: ${(error as Error).message}`, { cause: error });
  }
}

/** The public keys of every file: each a JWK or a JWKS. */
export function readTrustedKeys(paths: readonly string[]): JSONWebKeySet {
  const keys: JWK[] = [];
  for (const path of paths) {
    const value = readJson(path, 'gateway key') as { readonly keys?: unknown; readonly kty?: unknown };
    if (Array.isArray(value.keys)) keys.push(...(value.keys as JWK[]));
    else if (typeof value.kty === 'string') keys.push(value as JWK);
    else throw new Error(`the gateway key file ${JSON.stringify(path)} holds neither a JWK nor a JWKS`);
  }
  return { keys };
}

/** A private JWK (it has `d`). */
export function readPrivateKey(path: string): JWK {
  const value = readJson(path, 'identity key') as JWK;
  if (typeof value.kty !== 'string' || value.d === undefined) throw new Error(`the identity key file ${JSON.stringify(path)} must hold a private JWK (with "d")`);
  return value;
}
