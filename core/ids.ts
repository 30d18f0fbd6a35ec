import { randomBase64url } from './crypto/random.ts';

/**
 * A session id: 32 crypto-random bytes as base64url, so only visible ASCII (0x21-0x7E) as the Streamable
 * HTTP rules require, and unguessable.
 */
export function newSessionId(): string {
  return randomBase64url(32);
}
