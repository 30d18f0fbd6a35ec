/**
 * Confirming a compare-and-set write to a KV bucket, shared by the legacy session claims
 * (server/session-ownership.ts) and the task store's status moves (jetstream-task-store.ts).
 *
 * A clustered JetStream checks a write's expected revision before the write's consensus, not in it (nats-server
 * #4320: before 2.9.21 for any two writes in flight at once, later versions still across a change of the
 * stream's leader), so two writes expecting one revision can both be stored, the later one overwriting the
 * other, and both writers told they won. So a writer that must know waits `WRITE_SETTLE_MS` for a concurrent
 * write to land, then reads the key as the stream's leader holds it (a direct get may be answered by a replica
 * that lags a write just acknowledged): what it finds there decides whose write stands.
 */
import type { JetStreamManager, StoredMsg } from '@nats-io/jetstream';

/** How long a writer waits for a concurrent write to land before it reads whose write came last. */
export const WRITE_SETTLE_MS = 100;

/** The last message of `key` in `bucket`, read from the stream's leader; undefined when the key has none. */
export async function lastFromLeader(jsm: JetStreamManager, bucket: string, key: string): Promise<StoredMsg | undefined> {
  // nats.js v3 answers null for "no message found".
  return (await jsm.streams.getMessage(`KV_${bucket}`, { last_by_subj: `$KV.${bucket}.${key}` })) ?? undefined;
}

/** Whether the bucket's stream is clustered, where writes need confirming (a lone server checks them in its store). */
export async function isClustered(jsm: JetStreamManager, bucket: string): Promise<boolean> {
  try {
    return (await jsm.streams.info(`KV_${bucket}`)).cluster?.name !== undefined;
  } catch {
    // Unknown: confirm, which costs time but never a second winner.
    return true;
  }
}
