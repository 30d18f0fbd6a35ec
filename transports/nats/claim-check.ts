/**
 * Claim-check for answers larger than the NATS server's `max_payload` (opt-in on both sides): the server puts the
 * encoded body into a JetStream object store and sends a small message naming it, with its SHA-256; the client
 * fetches it, checks the digest, and deletes it. The bucket's TTL removes bodies nobody fetched.
 */
import { type NatsConnection, nanos } from '@nats-io/nats-core';
import type { ObjectStore, Objm } from '@nats-io/obj';
import { encodeBase64url } from '../../core/bytes.ts';
import { sha256Bytes } from '../../core/crypto/hmac.ts';
import { randomBytes } from '../../core/crypto/random.ts';
import { LocalError } from '../../core/errors.ts';
import { NatsHeader } from './headers.ts';
import { retryWhileLeaderless } from './jetstream-retry.ts';

export interface ClaimCheckOptions {
  /** Object store bucket (default `mcp_claims`). */
  readonly bucket?: string;
  /** How long an unfetched body is kept (default 10 minutes). */
  readonly ttlMs?: number;
  /**
   * Copies of the bucket in a JetStream cluster (default 1; 3 survives the loss of a node). Used when the bucket
   * is created: an existing bucket keeps its own setting.
   */
  readonly replicas?: number;
  /**
   * How long the bucket's creation, and each deposit, keep trying while JetStream has no leader for them (a
   * cluster electing one after a node died; default: as for every JetStream call of the binding).
   */
  readonly electionRetryMs?: number;
}

export const DEFAULT_CLAIM_BUCKET = 'mcp_claims';

/**
 * The object store manager of @nats-io/obj, loaded when a claim-check is first used: only claim-check needs the
 * package, so rxmcp/nats loads without it.
 */
async function objm(connection: NatsConnection): Promise<Objm> {
  const obj = await import('@nats-io/obj').catch((error: unknown) => {
    throw new Error('claim-check needs the @nats-io/obj package beside rxmcp (npm install @nats-io/obj)', { cause: error });
  });
  return new obj.Objm(connection);
}

/** The body's SHA-256 in padded standard base64 (what the claim's digest header carries). */
export function digestOf(body: Uint8Array): string {
  const url = encodeBase64url(sha256Bytes(body));
  return url.replaceAll('-', '+').replaceAll('_', '/') + '='.repeat((4 - (url.length % 4)) % 4);
}

/** Opens (or creates) the bucket; shared by every claim of a process. */
export async function openClaimStore(connection: NatsConnection, options: ClaimCheckOptions): Promise<ObjectStore> {
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  const config = { ttl: nanos(ttlMs), ...(options.replicas === undefined ? {} : { replicas: options.replicas }) };
  // Creating the bucket again with the same configuration is harmless, so even a timeout is tried again.
  return retryWhileLeaderless(() => objm(connection).then((store) => store.create(options.bucket ?? DEFAULT_CLAIM_BUCKET, config)), {
    ...(options.electionRetryMs === undefined ? {} : { budgetMs: options.electionRetryMs }),
    timeoutIsSafe: true,
    opening: true,
  });
}

/** Stores a body; returns the headers of the message that points to it. */
export async function depositClaim(store: ObjectStore, bucket: string, body: Uint8Array): Promise<Record<string, string>> {
  const name = Array.from(randomBytes(16), (byte) => byte.toString(16).padStart(2, '0')).join('');
  // A repeat under the same name replaces the first attempt's object, whatever part of it was stored.
  await retryWhileLeaderless(() => store.putBlob({ name }, body), { timeoutIsSafe: true });
  return { [NatsHeader.claim]: name, [NatsHeader.claimBucket]: bucket, [NatsHeader.claimDigest]: digestOf(body) };
}

/** Fetches, checks and deletes a claimed body. */
export async function redeemClaim(connection: NatsConnection, bucket: string, name: string, digest: string | undefined): Promise<Uint8Array> {
  const { store, body } = await retryWhileLeaderless(async () => {
    const store = await (await objm(connection)).open(bucket);
    return { store, body: await store.getBlob(name) };
  }, { timeoutIsSafe: true });
  if (body === null) throw new LocalError('TransportFailed', `The claimed answer ${name} is no longer in object store ${bucket}`);
  if (digest === undefined || digestOf(body) !== digest) {
    throw new LocalError('ProtocolViolation', `The claimed answer ${name} does not match its SHA-256 digest`);
  }
  // Best effort: the bucket's TTL removes it anyway.
  store.delete(name).catch(() => undefined);
  return body;
}
