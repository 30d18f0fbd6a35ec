/**
 * The integrity half of a skill entry: the SHA-256 digest (`sha256:<64 lowercase hex>`) and byte size of each file,
 * computed by a server when it lists a skill and checked by a client on every file it reads.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import type { SkillResource } from '../protocol/skills.ts';

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** The digest of raw bytes, as skill entries write it. */
export function skillDigest(bytes: Uint8Array): string {
  let hex = 'sha256:';
  for (const byte of sha256(bytes)) hex += HEX[byte] as string;
  return hex;
}

/** The manifest entry of a file. */
export function skillResource(uri: string, bytes: Uint8Array): SkillResource {
  return { uri, digest: skillDigest(bytes), size: bytes.byteLength };
}

/** Why `bytes` are not the file `entry` describes, or `undefined` when they are (size first: it costs nothing). */
export function verifySkillFile(entry: SkillResource, bytes: Uint8Array): string | undefined {
  if (bytes.byteLength !== entry.size) return `${entry.uri} is ${bytes.byteLength} bytes, but its entry says ${entry.size}`;
  const digest = skillDigest(bytes);
  if (digest !== entry.digest) return `${entry.uri} hashes to ${digest}, but its entry says ${entry.digest}`;
  return undefined;
}
