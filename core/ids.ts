import { randomBytes } from 'node:crypto';

/**
 * A session id: 32 crypto-random bytes as base64url, so only visible ASCII (0x21-0x7E) as the Streamable
 * HTTP rules require, and unguessable.
 */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}
