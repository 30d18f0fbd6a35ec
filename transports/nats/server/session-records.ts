/**
 * Legacy sessions' records in a JetStream KV bucket, so that another process can take a session over when the
 * process that owns it dies. A record holds what a session needs to go on without a new handshake (revision,
 * the client's capabilities and info, where its server requests go) and which process owns it. Taking over is
 * a compare-and-set on the record's revision: of several processes that try at once, exactly one wins.
 */
import type { NatsConnection } from '@nats-io/nats-core';
import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import { isLoggingLevel } from '../../../core/protocol/logging.ts';
import type { LegacyRevision } from '../../../core/protocol/versions.ts';
import type { PortableSessionState } from '../../../core/transport.ts';
import type { BodyEncoding } from '../body-codec.ts';
import { DEFAULT_ELECTION_RETRY_MS, retryWhileLeaderless } from '../jetstream-retry.ts';
import { lastFromLeader } from '../leader-read.ts';

export interface SessionRecord {
  readonly revision: LegacyRevision;
  readonly peerCapabilities: { readonly [key: string]: unknown };
  readonly peerInfo?: { readonly name: string; readonly version: string; readonly [key: string]: unknown };
  readonly clientInbox: string;
  readonly encoding: BodyEncoding;
  /** The process serving it now. */
  readonly owner: string;
  /** The caller the session belongs to (its verified identity's principal); absent for an anonymous session. */
  readonly principal?: string;
  /** What the session subscribed to and its log level, restored by the process that takes it over. */
  readonly state?: PortableSessionState;
}

/** Subscriptions a record keeps per session (the server's own cap may be lower); more are not carried over. */
export const MAX_RECORDED_SUBSCRIPTIONS = 1000;
/** Longest resource URI a record keeps. */
const MAX_URI_CHARS = 2048;
/** Attempts at a revision-checked state write that lost to a concurrent write of the same record. */
const STATE_WRITE_ATTEMPTS = 5;

export interface SessionRecordOptions {
  /** KV bucket (default `mcp_sessions_<name>`). */
  readonly bucket?: string;
  /** How long a record outlives its last write (default 24 h): sessions nobody closed do not stay forever. */
  readonly ttlMs?: number;
  /**
   * Copies of the bucket in a JetStream cluster (default 1; 3 survives the loss of a node). Used when the bucket
   * is created: an existing bucket keeps its own setting.
   */
  readonly replicas?: number;
  /**
   * How long a record's read or write keeps trying while the bucket has no leader (a JetStream cluster electing
   * a new one after a node died; default 15 s).
   */
  readonly electionRetryMs?: number;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function parse(bytes: Uint8Array): SessionRecord | undefined {
  try {
    const value: unknown = JSON.parse(decoder.decode(bytes));
    if (typeof value !== 'object' || value === null) return undefined;
    const record = value as Partial<SessionRecord>;
    if (typeof record.revision !== 'string' || typeof record.owner !== 'string' || typeof record.clientInbox !== 'string') return undefined;
    if (record.principal !== undefined && typeof record.principal !== 'string') return undefined;
    const { state, ...rest } = record as SessionRecord;
    const kept = portableOf(state);
    return (kept === undefined ? rest : { ...rest, state: kept }) as SessionRecord;
  } catch {
    return undefined;
  }
}

/**
 * The part of a recorded state that can be trusted: string URIs of bounded length, at most
 * `MAX_RECORDED_SUBSCRIPTIONS` of them, a known log level. Anything else in a record is left out.
 */
export function portableOf(value: unknown): PortableSessionState | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { subscriptions, logLevel } = value as { subscriptions?: unknown; logLevel?: unknown };
  const uris = Array.isArray(subscriptions)
    ? subscriptions.filter((uri): uri is string => typeof uri === 'string' && uri.length <= MAX_URI_CHARS).slice(0, MAX_RECORDED_SUBSCRIPTIONS)
    : [];
  return { subscriptions: uris, ...(isLoggingLevel(logLevel) ? { logLevel } : {}) };
}

export class SessionRecords {
  private constructor(
    private readonly kv: KV,
    private readonly electionRetryMs: number,
    private readonly jsm: JetStreamManager,
    private readonly bucket: string,
  ) {}

  /** Opens (or creates) the bucket; its creation is tried within `electionRetryMs` too. */
  static async open(connection: NatsConnection, name: string, options: SessionRecordOptions = {}): Promise<SessionRecords> {
    const bucket = options.bucket ?? `mcp_sessions_${name}`;
    const electionRetryMs = options.electionRetryMs ?? DEFAULT_ELECTION_RETRY_MS;
    const config = { history: 1, ttl: options.ttlMs ?? 24 * 3_600_000, ...(options.replicas === undefined ? {} : { replicas: options.replicas }) };
    // Creating a bucket with the same configuration again is harmless, so even a timeout is tried again.
    const kv = await retryWhileLeaderless(() => new Kvm(connection).create(bucket, config), { budgetMs: electionRetryMs, timeoutIsSafe: true, opening: true });
    // The account check was made by the bucket's opening.
    const jsm = await jetstreamManager(connection, { checkAPI: false });
    return new SessionRecords(kv, electionRetryMs, jsm, bucket);
  }

  async put(sessionId: string, record: SessionRecord): Promise<void> {
    const value = encoder.encode(JSON.stringify(record));
    // Written once, when the session opens, before anyone else knows it: a repeat writes the same record.
    await this.duringElection(() => this.kv.put(sessionId, value), true);
  }

  async get(sessionId: string): Promise<{ readonly record: SessionRecord; readonly revision: number } | undefined> {
    const entry = await this.duringElection(() => this.kv.get(sessionId), true);
    if (entry === null || entry.operation !== 'PUT') return undefined;
    const record = parse(entry.value);
    return record === undefined ? undefined : { record, revision: entry.revision };
  }

  /**
   * The record as the bucket's leader holds it. `get` may be answered by any replica (a direct get), which can lag
   * a write that was just acknowledged; this read cannot.
   */
  async getFromLeader(sessionId: string): Promise<{ readonly record: SessionRecord; readonly revision: number } | undefined> {
    const stored = await this.duringElection(() => lastFromLeader(this.jsm, this.bucket, sessionId), true);
    if (stored === undefined) return undefined;
    const operation = stored.header?.get('KV-Operation');
    if (operation === 'DEL' || operation === 'PURGE') return undefined;
    const record = parse(stored.data);
    return record === undefined ? undefined : { record, revision: stored.seq };
  }

  /**
   * Makes `owner` the session's owner if the record is still at `revision`; false when another process won.
   * On a JetStream cluster a `true` is not the last word: see `LegacySessions` (a claim's confirmation).
   */
  async claim(sessionId: string, record: SessionRecord, revision: number): Promise<boolean> {
    try {
      const value = encoder.encode(JSON.stringify(record));
      // Not after a timeout: the first write may have landed, and a repeat would then lose to it.
      await this.duringElection(() => this.kv.update(sessionId, value, revision), false);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Puts `previous` back if `owner` still owns the session: a process that claimed a session and then could not
   * serve it gives it up, so the next request finds its old (dead) owner and another process takes it over.
   */
  async handBack(sessionId: string, owner: string, previous: SessionRecord): Promise<void> {
    const found = await this.get(sessionId);
    if (found === undefined || found.record.owner !== owner) return;
    await this.claim(sessionId, previous, found.revision);
  }

  /**
   * Writes the session's portable state if `owner` still owns it, checked against the record's revision (a
   * takeover that lands in between wins; the write is not made). `'not-owner'` when the session is another
   * process's, `'gone'` when its record is (expired, or the session ended), `'conflict'` when concurrent writes
   * kept winning.
   */
  async saveState(sessionId: string, owner: string, state: PortableSessionState): Promise<'saved' | 'not-owner' | 'gone' | 'conflict'> {
    const bounded = portableOf(state);
    for (let attempt = 0; attempt < STATE_WRITE_ATTEMPTS; attempt++) {
      const found = await this.get(sessionId);
      if (found === undefined) return 'gone';
      if (found.record.owner !== owner) return 'not-owner';
      if (await this.claim(sessionId, { ...found.record, ...(bounded === undefined ? {} : { state: bounded }) }, found.revision)) return 'saved';
    }
    return 'conflict';
  }

  /** Deletes the record if `owner` still owns the session (a process that lost it must not end it for all). */
  async deleteIfOwner(sessionId: string, owner: string): Promise<void> {
    const found = await this.get(sessionId);
    if (found === undefined || found.record.owner !== owner) return;
    await this.duringElection(() => this.kv.delete(sessionId), true);
  }

  /** A KV call, tried again while the bucket has no leader (`timeoutIsSafe`: the call may be repeated blindly). */
  private duringElection<T>(call: () => Promise<T>, timeoutIsSafe: boolean): Promise<T> {
    return retryWhileLeaderless(call, { budgetMs: this.electionRetryMs, timeoutIsSafe });
  }
}
