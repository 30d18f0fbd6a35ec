/**
 * The gateway's legacy HTTP sessions in JetStream KV, so every replica can serve every session: the HTTP session
 * id maps to the NATS session behind it, with what a replica needs to restore the HTTP side (the negotiated
 * revision and the client's capabilities) and the subject where the session's server requests arrive.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { type KV, Kvm } from '@nats-io/kv';
import type { RestoredSession } from '../../transports/http/index.ts';
import { isLegacyRevision } from '../../core/protocol/versions.ts';
import { DEFAULT_ELECTION_RETRY_MS, retryWhileLeaderless } from '../../transports/nats/jetstream-retry.ts';

export interface GatewaySessionRecord extends RestoredSession {
  /** The NATS session the servers know. */
  readonly natsSessionId: string;
  /** Where the servers send this session's requests and notifications (any replica may listen). */
  readonly clientInbox: string;
  /** Who opened the session (the HTTP side's principal); only that caller restores it. */
  readonly principal?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class GatewaySessions {
  private constructor(
    private readonly kv: KV,
    private readonly electionRetryMs: number,
  ) {}

  /**
   * Opens (or creates) the bucket. Its creation, like every read and write, is tried again while JetStream has no
   * leader for it, for `electionRetryMs` (default: the binding's): creating it again with the same configuration is harmless.
   */
  static async open(connection: NatsConnection, bucket: string, ttlMs: number, options: { readonly replicas?: number; readonly electionRetryMs?: number } = {}): Promise<GatewaySessions> {
    const electionRetryMs = options.electionRetryMs ?? DEFAULT_ELECTION_RETRY_MS;
    const config = { history: 1, ttl: ttlMs, ...(options.replicas === undefined ? {} : { replicas: options.replicas }) };
    const kv = await retryWhileLeaderless(() => new Kvm(connection).create(bucket, config), { budgetMs: electionRetryMs, timeoutIsSafe: true, opening: true });
    return new GatewaySessions(kv, electionRetryMs);
  }

  // Reads and writes are tried again while the bucket has no leader (a JetStream cluster electing a new one after
  // a node died); each is safe to repeat: a record is written once, when its session opens.
  async put(httpSessionId: string, record: GatewaySessionRecord): Promise<void> {
    const value = encoder.encode(JSON.stringify(record));
    await this.duringElection(() => this.kv.put(httpSessionId, value));
  }

  async get(httpSessionId: string): Promise<GatewaySessionRecord | undefined> {
    // KV keys allow [-/_=.a-zA-Z0-9]; base64url session ids fit, anything else is not one of ours.
    if (!/^[-_=A-Za-z0-9]{1,256}$/.test(httpSessionId)) return undefined;
    const entry = await this.duringElection(() => this.kv.get(httpSessionId));
    if (entry === null || entry.operation !== 'PUT') return undefined;
    try {
      const record = JSON.parse(decoder.decode(entry.value)) as GatewaySessionRecord;
      if (!isLegacyRevision(record.revision) || typeof record.natsSessionId !== 'string' || typeof record.clientInbox !== 'string') return undefined;
      if (record.principal !== undefined && typeof record.principal !== 'string') return undefined;
      return record;
    } catch {
      return undefined;
    }
  }

  async delete(httpSessionId: string): Promise<void> {
    await this.duringElection(() => this.kv.delete(httpSessionId));
  }

  private duringElection<T>(call: () => Promise<T>): Promise<T> {
    return retryWhileLeaderless(call, { budgetMs: this.electionRetryMs, timeoutIsSafe: true });
  }
}
