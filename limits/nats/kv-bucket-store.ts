/**
 * Buckets shared by every process through a NATS JetStream KV bucket: one KV key per token bucket, holding its
 * level and the millisecond it was computed for.
 *
 * A take reads the key, computes the new level, and writes it back only if the key is still at the revision it
 * read (`previousSeq`: JetStream's optimistic concurrency). Another process that wrote first makes the write
 * fail with "wrong last sequence"; the take then starts over, a bounded number of times. A refusal (and a
 * free take) writes nothing. The KV bucket's `max_age` (the `ttlMs` option) drops a key some time after its last write; it must
 * be at least the slowest limit's fill time, so that a key only disappears once its bucket is full again.
 *
 * When NATS cannot be reached (the connection is down, closed, or an operation times out) the store follows
 * `whenUnreachable`: by default `local`, each process keeps the limits with buckets of its own until NATS is
 * back, so N processes admit at most N times the limit instead of either everything (fail open) or nothing
 * (fail closed, which turns a NATS outage into an outage of every MCP server behind it).
 */
import type { NatsConnection } from '@nats-io/nats-core';
import type { KV } from '@nats-io/kv';
import { MemoryBucketStore } from '../bucket-store.ts';
import type { BucketStore } from '../bucket-store.ts';
import type { Clock } from '../../core/clock.ts';
import { systemClock } from '../../core/clock.ts';
import type { BucketState, TakeDecision, TokenBucket } from '../token-bucket.ts';

/** What a take does while NATS cannot be reached. */
export type UnreachablePolicy = 'local' | 'allow' | 'deny';

export interface KvBucketStoreOptions {
  /** The KV bucket's name (default `rxmcp_limits`). Created if missing. */
  readonly bucket?: string;
  /** The KV bucket's `max_age`: a key idle this long is dropped (default one hour). */
  readonly ttlMs?: number;
  /** Attempts of one take when other processes keep writing first (default 8). */
  readonly maxAttempts?: number;
  /** One KV operation's timeout (default 500 ms): past it, NATS counts as unreachable for this take. */
  readonly timeoutMs?: number;
  /** See the module comment (default `local`). */
  readonly whenUnreachable?: UnreachablePolicy;
  /** `deny`: the retry-after a refused take names (default 1000 ms). */
  readonly unreachableRetryAfterMs?: number;
  /** Time (default the system clock). Processes sharing buckets should have synchronised clocks: see docs/limits.md. */
  readonly clock?: Clock;
  /** `local`: the bound of the fallback buckets (default 100,000). */
  readonly localMaxBuckets?: number;
}

export interface KvBucketStoreStats {
  /** Takes decided by NATS. */
  readonly shared: number;
  /** Writes that lost a race and started over. */
  readonly conflicts: number;
  /** Takes decided without NATS (by `whenUnreachable`). */
  readonly unreachable: number;
  /** Takes refused because every attempt lost its race. */
  readonly contended: number;
}

/** JetStream's "wrong last sequence": another writer got there first. */
const WRONG_LAST_SEQUENCE = 10071;
/** The retry-after of a take that lost every race: the bucket is being hammered, back off briefly. */
const CONTENDED_RETRY_MS = 50;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** KV keys allow `[-/_=.a-zA-Z0-9]`: a bucket key (any string) is written as base64url of its UTF-8. */
function kvKeyOf(key: string): string {
  let binary = '';
  for (const byte of encoder.encode(key)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function decodeState(value: Uint8Array): BucketState | undefined {
  try {
    const parsed = JSON.parse(decoder.decode(value)) as { u?: unknown; t?: unknown };
    return Number.isSafeInteger(parsed.u) && Number.isSafeInteger(parsed.t) ? { units: parsed.u as number, at: parsed.t as number } : undefined;
  } catch {
    return undefined;
  }
}

function isConflict(error: unknown): boolean {
  // A JetStreamApiError of @nats-io/jetstream, known by its name: this module loads without the package.
  return error instanceof Error && error.name === 'JetStreamApiError' && (error as { readonly code?: unknown }).code === WRONG_LAST_SEQUENCE;
}

export class KvBucketStore implements BucketStore {
  private connectionDown = false;
  private readonly local: MemoryBucketStore;
  private readonly clock: Clock;
  private readonly maxAttempts: number;
  private readonly policy: UnreachablePolicy;
  private readonly unreachableRetryAfterMs: number;
  private sharedCount = 0;
  private conflictCount = 0;
  private unreachableCount = 0;
  private contendedCount = 0;

  private constructor(
    private readonly connection: NatsConnection,
    private readonly kv: KV,
    private readonly ttlMs: number,
    options: KvBucketStoreOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    this.maxAttempts = options.maxAttempts ?? 8;
    this.policy = options.whenUnreachable ?? 'local';
    this.unreachableRetryAfterMs = options.unreachableRetryAfterMs ?? 1000;
    this.local = new MemoryBucketStore({ clock: this.clock, maxBuckets: options.localMaxBuckets ?? 100_000 });
    void this.watchConnection();
  }

  /** Opens (creating if needed) the KV bucket on `connection`. Needs NATS reachable, with JetStream. */
  static async open(connection: NatsConnection, options: KvBucketStoreOptions = {}): Promise<KvBucketStore> {
    const ttlMs = options.ttlMs ?? 3_600_000;
    if (!Number.isInteger(options.maxAttempts ?? 1) || (options.maxAttempts ?? 1) < 1) throw new RangeError('maxAttempts is a positive integer');
    // Loaded here, not at the top: rxmcp/limits/nats itself loads without the NATS packages (their types aside).
    const [{ jetstream }, { Kvm }] = await Promise.all([import('@nats-io/jetstream'), import('@nats-io/kv')]);
    const kv = await new Kvm(jetstream(connection, { timeout: options.timeoutMs ?? 500 })).create(options.bucket ?? 'rxmcp_limits', { history: 1, ttl: ttlMs });
    return new KvBucketStore(connection, kv, ttlMs, options);
  }

  async take(key: string, bucket: TokenBucket, costUnits: number): Promise<TakeDecision> {
    if (bucket.fillMs > this.ttlMs) {
      throw new RangeError(`A limit that takes ${bucket.fillMs} ms to fill needs the KV bucket's ttlMs (${this.ttlMs}) at least that long`);
    }
    if (this.connectionDown || this.connection.isClosed()) return this.unreachable(key, bucket, costUnits);
    const kvKey = kvKeyOf(key);
    try {
      for (let attempt = 0; attempt < this.maxAttempts; attempt += 1) {
        const entry = await this.kv.get(kvKey);
        const stored = entry !== null && entry.operation === 'PUT' ? decodeState(entry.value) : undefined;
        const { state, decision } = bucket.take(stored, costUnits, this.clock.now());
        // A refusal changes nothing, nor does a free take: neither is written.
        if (!decision.allowed || costUnits === 0) {
          this.sharedCount += 1;
          return decision;
        }
        try {
          // previousSeq 0: the key must not exist; else it must still be at the revision read.
          await this.kv.put(kvKey, encoder.encode(JSON.stringify({ u: state.units, t: state.at })), { previousSeq: entry?.revision ?? 0 });
          this.sharedCount += 1;
          return decision;
        } catch (error) {
          if (!isConflict(error)) throw error;
          this.conflictCount += 1;
        }
      }
    } catch {
      return this.unreachable(key, bucket, costUnits);
    }
    this.contendedCount += 1;
    return { allowed: false, remaining: 0, retryAfterMs: CONTENDED_RETRY_MS };
  }

  stats(): KvBucketStoreStats {
    return { shared: this.sharedCount, conflicts: this.conflictCount, unreachable: this.unreachableCount, contended: this.contendedCount };
  }

  private unreachable(key: string, bucket: TokenBucket, costUnits: number): TakeDecision {
    this.unreachableCount += 1;
    switch (this.policy) {
      case 'local':
        return this.local.take(key, bucket, costUnits);
      case 'allow':
        return { allowed: true, remaining: 0, retryAfterMs: 0 };
      case 'deny':
        return { allowed: false, remaining: 0, retryAfterMs: this.unreachableRetryAfterMs };
    }
  }

  /** Follows the connection, so takes during an outage decide at once instead of waiting for a timeout each. */
  private async watchConnection(): Promise<void> {
    try {
      for await (const status of this.connection.status()) {
        if (status.type === 'disconnect') this.connectionDown = true;
        else if (status.type === 'reconnect') this.connectionDown = false;
      }
    } catch {
      // The status stream ends with the connection; `isClosed()` covers the rest.
    }
  }
}
