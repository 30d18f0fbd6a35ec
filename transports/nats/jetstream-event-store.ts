/**
 * An {@link EventStore} in a NATS JetStream stream, shared by every replica of an HTTP gateway: a client that
 * lost an SSE stream resumes it at any replica, which replays it and, while the request still runs at another
 * one, follows it live (`follow`) until its end (`endStream`).
 *
 * Layout:
 * - one stream (default `MCP_GATEWAY_EVENTS`) on `<prefix>.>` (default prefix `mcp.gw.events`), bounded by age
 *   (default 10 min) and size (default 256 MiB), dropping the oldest events first; created idempotently, so
 *   replicas starting at once all succeed;
 * - each event is one message on `<prefix>.<session>.<stream>`, its body the JSON-RPC message as sent; ids are
 *   `<streamId>.<JetStream sequence>`, so a replay finds the subject and the starting point from the id alone;
 * - a priming event is a message with the header `Mcp-Priming: 1` and no body (it only marks a position);
 *   the end of a stream is one with `Mcp-Stream-End: 1`; neither is ever replayed;
 * - replays and follows read message by message from the stream's leader ("the next message of this subject at
 *   or after that sequence"), never through a consumer: a consumer lives on one node, and one made while the
 *   stream elects a leader (a node died) can be placed on a dead peer and never start, while a read is an API
 *   request the election retry already covers; a follow reads on when its core subscription to the subject
 *   rings (every publish reaches core subscribers too), on a reconnect, and on a poll that covers a doorbell
 *   missed while interest was still spreading through the cluster;
 * - a session that ends is purged by subject filter;
 * - every message names the store that appended it (header `Mcp-Producer`), and each store answers pings on
 *   `<prefix>-alive.<its id>` (beside the stream's subjects, never stored): a follower that hears nothing for a
 *   while asks the stream's producer, and when NATS says twice that nobody answers there (the replica died or
 *   lost NATS), the follow fails with a `StreamAbandonedError` naming the requests the stream was to answer (a
 *   marker with `Mcp-Stream-Start: 1` at the stream's start records them, never replayed).
 *
 * Tokens of subjects are the session and stream ids as they are when made of `A-Z a-z 0-9 _ -` (rxmcp's
 * base64url session ids and `p1`-style stream ids are), otherwise `~` and the hex of their UTF-8 bytes: no
 * `.`, `*`, `>` or whitespace ever reaches a subject, and distinct ids never share one.
 *
 * Events larger than the server's `max_payload` cannot be stored: `append` rejects, as the session's send does.
 *
 * @example
 * ```ts
 * import { connect } from '@nats-io/nats-core';
 * import { createServer } from 'rxmcp';
 * import { createStreamableHttpServer } from 'rxmcp/http';
 * import { JetStreamEventStore } from 'rxmcp/nats';
 *
 * const nc = await connect({ servers: 'nats://127.0.0.1:4222' });
 * const eventStore = await JetStreamEventStore.create(nc, { maxAgeMs: 5 * 60_000 });
 * const server = createServer({ name: 'gateway', version: '1.0.0' });
 * // restoreSession reads the session records every replica shares (a JetStream KV bucket, say).
 * const http = createStreamableHttpServer({ server, eventStore, restoreSession: (id) => sessionRecords.get(id) });
 * ```
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { type MsgHdrs, type NatsConnection, type Subscription, headers as natsHeaders, nanos } from '@nats-io/nats-core';
import {
  DiscardPolicy,
  type JetStreamClient,
  type JetStreamManager,
  RetentionPolicy,
  type SeqMsgRequest,
  StorageType,
  type StoredMsg,
  type StreamConfig,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import { Observable } from 'rxjs';
import { type Clock, type TimerHandle, systemClock } from '../../core/clock.ts';
import type { RequestId } from '../../core/jsonrpc.ts';
import { coalescedRun } from './coalesced-run.ts';
import { type ConnectionState, connectionState } from './connection-state.ts';
import { type EventStore, type FollowOptions, type ReplayResult, type StoredEvent, StreamAbandonedError } from '../http/index.ts';
import { DEFAULT_ELECTION_RETRY_MS, isLeaderless, retryWhileLeaderless } from './jetstream-retry.ts';
import { apiErrorCode } from './jetstream-errors.ts';
import { isNoResponders } from './nats-errors.ts';

export interface JetStreamEventStoreOptions {
  /** The stream's name (default `MCP_GATEWAY_EVENTS`). */
  readonly stream?: string;
  /** Subjects are `<prefix>.<session>.<stream>` (default `mcp.gw.events`). */
  readonly subjectPrefix?: string;
  /** Events older than this are dropped (default 10 min). */
  readonly maxAgeMs?: number;
  /** The stream's size limit; the oldest events go first (default 256 MiB). */
  readonly maxBytes?: number;
  /** Where JetStream keeps the events (default `file`). */
  readonly storage?: 'file' | 'memory';
  /** Copies in a JetStream cluster (default 1). */
  readonly replicas?: number;
  /** How long a replay may take before it fails (default 10 s). */
  readonly replayTimeoutMs?: number;
  /**
   * How long an append or a replay keeps trying while the stream has no leader (a JetStream cluster electing a
   * new one after a node died; default 15 s). Appends carry a message id, so one repeated after a lost
   * acknowledgement is stored once.
   */
  readonly electionRetryMs?: number;
  /** The replay timeout, the election retries, the follows' polls and the producer watch run on this clock (default: the system clock). */
  readonly clock?: Clock;
  /**
   * How long a follower waits without a message before it asks whether the stream's producer is alive (default
   * 2 s); `false` neither answers nor asks (a follow then waits for the stream's end however long it takes).
   */
  readonly producerCheckMs?: number | false;
}

/** Marks a stream's end: followers complete there. */
export const STREAM_END_HEADER = 'Mcp-Stream-End';
/** Marks a priming event: a position in the stream, never replayed. */
export const PRIMING_HEADER = 'Mcp-Priming';
/** Marks a request stream's start; its body is the JSON array of the ids of the requests it answers. */
export const STREAM_START_HEADER = 'Mcp-Stream-Start';
/** The store that appended a message: its id, the last token of the subject it answers pings on. */
export const PRODUCER_HEADER = 'Mcp-Producer';
/** Consecutive "no responders" answers that make a producer gone (one may come while its subscription is being restored). */
const GONE_AFTER = 2;
/** Unanswered pings (timeouts: a producer too busy or unreachable) that make it gone as well. */
const SILENT_AFTER = 3;

const DEFAULTS = {
  stream: 'MCP_GATEWAY_EVENTS',
  subjectPrefix: 'mcp.gw.events',
  maxAgeMs: 10 * 60_000,
  maxBytes: 256 * 1024 * 1024,
  replayTimeoutMs: 10_000,
  producerCheckMs: 2_000,
} as const;

/**
 * How long one read or append waits for the stream's leader. A healthy leader answers in milliseconds; one that
 * just died never does, and the call is tried again (within the election retry) sooner than after the library's
 * 5 s default: its last try comes closer to the end of the budget, when a slow election is more likely over.
 */
const ATTEMPT_TIMEOUT_MS = 2000;
/** How often an idle follow reads anyway: a doorbell can be missed (interest still spreading through a cluster). */
const FOLLOW_POLL_MS = 2000;

/** The JetStream API error code this store tells apart. */
const STREAM_NAME_IN_USE = 10058;

const encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);

/** The parts of an event id: its stream and the JetStream sequence it was stored at. */
interface EventRef {
  readonly streamId: string;
  readonly seq: number;
}

/** A read of the stream's API: the first message of `next_by_subj` at or after `seq` (nats.js types lack it). */
interface NextBySubjectRequest extends SeqMsgRequest {
  readonly next_by_subj: string;
}

/** Bounds a replay in time and by `close`: `race` rejects once either came. */
interface ReplayBound {
  race<T>(work: Promise<T>): Promise<T>;
  end(): void;
}

export class JetStreamEventStore implements EventStore {
  /** Follows in progress, stopped (failed) by `close`. */
  private readonly followers = new Set<(error: Error) => void>();
  /** Replays in progress, failed by `close`. */
  private readonly replays = new Set<() => void>();
  private closed = false;
  /** This store's id as a producer, stamped on what it appends. */
  readonly producerId = randomBytes(9).toString('base64url');
  /** Answers the liveness pings of followers (none with `producerCheckMs: false`). */
  private readonly liveness: Subscription | undefined;
  private readonly js: JetStreamClient;
  /** `jsm` with the shorter timeout of reads (made at once: it asks the server nothing). */
  private readonly reader: Promise<JetStreamManager>;
  private readonly state: ConnectionState;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly prefix: string,
    private readonly replayTimeoutMs: number,
    private readonly clock: Clock,
    private readonly producerCheckMs: number | false,
    private readonly electionRetryMs: number,
  ) {
    this.js = jetstream(nc);
    this.reader = jetstreamManager(nc, { timeout: ATTEMPT_TIMEOUT_MS, checkAPI: false });
    this.reader.catch(() => undefined);
    this.state = connectionState(nc);
    this.liveness = producerCheckMs === false ? undefined : nc.subscribe(this.aliveSubject(this.producerId), { callback: (error, msg) => {
      if (error === null && msg.reply !== undefined && msg.reply !== '') msg.respond(EMPTY);
    } });
  }

  /** Where the store `producerId` answers pings: beside the stream's subjects, so never stored. */
  private aliveSubject(producerId: string): string {
    return `${this.prefix}-alive.${producerId}`;
  }

  /**
   * A store on `nc` (which stays the caller's to close), creating its stream unless it exists. Safe to call from
   * several processes at once: the same configuration is accepted as is; a stream of that name created with
   * other limits is used as it is, provided it takes the store's subjects.
   */
  static async create(nc: NatsConnection, options: JetStreamEventStoreOptions = {}): Promise<JetStreamEventStore> {
    const stream = options.stream ?? DEFAULTS.stream;
    const prefix = options.subjectPrefix ?? DEFAULTS.subjectPrefix;
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(prefix)) throw new RangeError(`The subject prefix ${JSON.stringify(prefix)} must be dot-separated tokens of A-Z a-z 0-9 _ -`);
    const maxAgeMs = options.maxAgeMs ?? DEFAULTS.maxAgeMs;
    const config: Partial<StreamConfig> & { readonly name: string } = {
      name: stream,
      subjects: [`${prefix}.>`],
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      storage: options.storage === 'memory' ? StorageType.Memory : StorageType.File,
      num_replicas: options.replicas ?? 1,
      max_age: nanos(maxAgeMs),
      max_bytes: options.maxBytes ?? DEFAULTS.maxBytes,
      // JetStream refuses a duplicate window longer than the age limit.
      duplicate_window: nanos(Math.min(2 * 60_000, maxAgeMs)),
    };
    const electionRetryMs = options.electionRetryMs ?? DEFAULT_ELECTION_RETRY_MS;
    // Creating the stream with the same configuration is idempotent, so a timeout is as safe to repeat as a
    // "temporarily unavailable" while a cluster has no JetStream leader (a gateway replica starting meanwhile).
    const duringElection = <T>(call: () => Promise<T>): Promise<T> => retryWhileLeaderless(call, { budgetMs: electionRetryMs, timeoutIsSafe: true, opening: true, ...(options.clock === undefined ? {} : { clock: options.clock }) });
    // Making the manager asks JetStream for its account info: leaderless, that too waits for the election.
    const jsm = await duringElection(() => jetstreamManager(nc));
    try {
      await duringElection(() => jsm.streams.add(config));
    } catch (error) {
      if (apiErrorCode(error) !== STREAM_NAME_IN_USE) throw error;
      const existing = await duringElection(() => jsm.streams.info(stream));
      if (!existing.config.subjects.includes(`${prefix}.>`)) {
        throw new Error(`The JetStream stream ${stream} exists without the subjects ${prefix}.>`, { cause: error });
      }
    }
    const producerCheckMs = options.producerCheckMs ?? DEFAULTS.producerCheckMs;
    if (producerCheckMs !== false && !(producerCheckMs > 0)) throw new RangeError('producerCheckMs must be a positive number of milliseconds, or false');
    return new JetStreamEventStore(nc, jsm, stream, prefix, options.replayTimeoutMs ?? DEFAULTS.replayTimeoutMs, options.clock ?? systemClock, producerCheckMs, electionRetryMs);
  }

  /** The subject events of `streamId` in session `sessionId` are stored on. */
  subjectOf(sessionId: string, streamId: string): string {
    return `${this.prefix}.${subjectToken(sessionId)}.${subjectToken(streamId)}`;
  }

  async append(sessionId: string, streamId: string, message: string | null): Promise<string> {
    this.assertOpen();
    if (/[\r\n\0]/.test(streamId)) throw new RangeError('A stream id must not contain line breaks or NUL (it is part of SSE event ids)');
    const subject = this.subjectOf(sessionId, streamId);
    // One id for every attempt: JetStream stores a repeat within its duplicate window once, and acknowledges it
    // with the first one's sequence.
    const msgID = randomUUID();
    const body = message === null ? EMPTY : encoder.encode(message);
    const options = { msgID, headers: message === null ? this.marker(PRIMING_HEADER) : this.marker(), timeout: ATTEMPT_TIMEOUT_MS };
    const ack = await this.duringElection(() => this.js.publish(subject, body, options));
    return `${streamId}.${ack.seq}`;
  }

  /**
   * A plain publish, not acknowledged: it costs the call no round trip, and JetStream stores it before the
   * stream's first event (same connection, sent first). Should it be lost, a follower of a stream whose producer
   * died only ends it without the error answers.
   */
  startStream(sessionId: string, streamId: string, requestIds: readonly RequestId[]): void {
    this.assertOpen();
    this.nc.publish(this.subjectOf(sessionId, streamId), encoder.encode(JSON.stringify(requestIds)), { headers: this.marker(STREAM_START_HEADER) });
  }

  async replayAfter(sessionId: string, lastEventId: string): Promise<ReplayResult | undefined> {
    this.assertOpen();
    const ref = parseEventId(lastEventId);
    if (ref === undefined) return undefined;
    const subject = this.subjectOf(sessionId, ref.streamId);
    // Started once the stream answered: until then the replay waits for a leader.
    let started = false;
    const bound = this.replayBound(() => (started
      ? `The replay of ${lastEventId} took longer than ${this.replayTimeoutMs} ms`
      : `The replay of ${lastEventId} could not start within ${this.replayTimeoutMs} ms`));
    try {
      if (!(await bound.race(this.duringElection(() => this.holds(subject, ref.seq))))) return undefined;
      started = true;
      // Up to what the subject held when the replay began (or, should that one be gone, to its current end).
      const last = await bound.race(this.duringElection(() => this.lastSeq(subject)));
      const events: StoredEvent[] = [];
      for (let seq = ref.seq + 1; last !== undefined && seq <= last;) {
        const from = seq;
        const msg = await bound.race(this.duringElection(() => this.nextOf(subject, from)));
        if (msg === undefined || msg.seq > last) break;
        const event = eventOf(msg, ref.streamId);
        if (event !== undefined) events.push(event);
        seq = msg.seq + 1;
      }
      return { streamId: ref.streamId, events };
    } finally {
      bound.end();
    }
  }

  follow(sessionId: string, lastEventId: string, options: FollowOptions = {}): Observable<StoredEvent> | undefined {
    const ref = parseEventId(lastEventId);
    if (ref === undefined) return undefined;
    const subject = this.subjectOf(sessionId, ref.streamId);
    return new Observable<StoredEvent>((subscriber) => {
      if (this.closed) return subscriber.error(new Error('The event store is closed'));
      let stopped = false;
      const cleanups: (() => void)[] = [];
      const stop = (error?: Error): void => {
        if (stopped) return;
        stopped = true;
        this.followers.delete(stop);
        for (const cleanup of cleanups) cleanup();
        if (error !== undefined) subscriber.error(error);
      };
      this.followers.add(stop);
      const watch = options.watchProducer === false || this.producerCheckMs === false ? undefined : this.watchProducer(subject, ref.streamId, stop);
      if (watch !== undefined) cleanups.push(() => watch.cancel());
      /** The sequence of the last message passed on (events and markers alike). */
      let after = ref.seq;
      let ready = false;
      /** Reads every message after `after`, in order, until there is none (yet) or the stream ended. */
      const drain = async (): Promise<void> => {
        while (!stopped) {
          const from = after + 1;
          const msg = await this.duringElection(() => this.nextOf(subject, from));
          if (msg === undefined || stopped) return;
          watch?.heard(msg.header.get(PRODUCER_HEADER));
          if (msg.header.get(STREAM_END_HEADER) === '1') {
            stop();
            return subscriber.complete();
          }
          after = msg.seq;
          const event = eventOf(msg, ref.streamId);
          if (event !== undefined) subscriber.next(event);
        }
      };
      const drains = coalescedRun(drain, (error) => {
        // Still no leader, or this side cut off from NATS: the next doorbell, poll or reconnect reads on.
        if (!isLeaderless(error, true) && !this.state.down) stop(asError(error));
      });
      const ring = (): void => {
        if (ready && !stopped) drains();
      };
      try {
        // Subscribed before the first read, so that nothing stored after that read goes unrung.
        const doorbell = this.nc.subscribe(subject, { callback: () => ring() });
        cleanups.push(() => doorbell.unsubscribe());
      } catch (error) {
        stop(asError(error));
        return;
      }
      const poll = this.clock.setInterval(ring, FOLLOW_POLL_MS);
      cleanups.push(() => poll.cancel());
      // Whatever was published while this connection was down rang no doorbell here.
      const offReconnect = this.state.on((event) => {
        if (event === 'reconnect') ring();
      });
      cleanups.push(() => void offReconnect());
      const start = async (): Promise<void> => {
        const held = await this.duringElection(() => this.holds(subject, ref.seq));
        if (held === false) throw new Error(`No event ${lastEventId} in this session`);
        if (typeof held === 'object') watch?.heard(held.header.get(PRODUCER_HEADER));
        if (stopped) return;
        watch?.start();
        ready = true;
        ring();
      };
      start().catch((error: unknown) => stop(asError(error)));
      return () => stop();
    });
  }

  /**
   * Watches the producer of a followed stream: each silence of `producerCheckMs` asks it whether it is alive;
   * gone (see the header), the follow is stopped with the requests the stream was to answer.
   */
  private watchProducer(subject: string, streamId: string, stop: (error?: Error) => void): { heard(producer: string | undefined): void; start(): void; cancel(): void } {
    const interval = this.producerCheckMs as number;
    let producer: string | undefined;
    let heard = true;
    let asking = false;
    let noResponders = 0;
    let silent = 0;
    let timer: TimerHandle | undefined;
    const check = async (): Promise<void> => {
      if (heard || producer === undefined || asking) {
        heard = false;
        return;
      }
      // While this side's own connection is down, no answer says anything about the producer.
      if (this.state.down) {
        noResponders = 0;
        silent = 0;
        return;
      }
      asking = true;
      try {
        await this.nc.request(this.aliveSubject(producer), EMPTY, { timeout: interval });
        noResponders = 0;
        silent = 0;
      } catch (error) {
        if (this.state.down) return;
        if (isNoResponders(error)) noResponders++;
        else silent++;
      } finally {
        asking = false;
      }
      if (noResponders < GONE_AFTER && silent < SILENT_AFTER) return;
      const gone = producer;
      cancel();
      const unanswered = await this.requestsOf(subject).catch(() => []);
      stop(new StreamAbandonedError(
        `The gateway replica producing stream ${streamId} is gone (${noResponders >= GONE_AFTER ? 'nothing answers for it on NATS' : `it did not answer ${SILENT_AFTER} checks`}; producer ${gone}): its answer cannot come; retry the request`,
        unanswered,
      ));
    };
    const cancel = (): void => {
      timer?.cancel();
      timer = undefined;
    };
    return {
      heard: (from) => {
        heard = true;
        noResponders = 0;
        silent = 0;
        if (from !== undefined && from !== '') producer = from;
      },
      start: () => {
        timer ??= this.clock.setInterval(() => void check(), interval);
      },
      cancel,
    };
  }

  /** The request ids the stream's start marker recorded (none when it is gone or there is none). */
  private async requestsOf(subject: string): Promise<RequestId[]> {
    const first = await this.duringElection(() => this.nextOf(subject, 1));
    if (first?.header.get(STREAM_START_HEADER) !== '1') return [];
    const ids = JSON.parse(first.string()) as unknown;
    return Array.isArray(ids) ? ids.filter((id): id is RequestId => typeof id === 'string' || typeof id === 'number') : [];
  }

  async endStream(sessionId: string, streamId: string): Promise<void> {
    this.assertOpen();
    const options = { msgID: randomUUID(), headers: this.marker(STREAM_END_HEADER), timeout: ATTEMPT_TIMEOUT_MS };
    await this.duringElection(() => this.js.publish(this.subjectOf(sessionId, streamId), EMPTY, options));
  }

  async dropSession(sessionId: string): Promise<void> {
    this.assertOpen();
    await this.jsm.streams.purge(this.stream, { filter: `${this.prefix}.${subjectToken(sessionId)}.>` });
  }

  /** Stops every follow (they fail) and replay; the connection stays open. Later calls reject. */
  close(): Promise<void> {
    this.closed = true;
    const error = new Error('The event store closed');
    for (const stop of [...this.followers]) stop(error);
    for (const abort of [...this.replays]) abort();
    this.liveness?.unsubscribe();
    return Promise.resolve();
  }

  // --- internals ----------------------------------------------------------------------------------------

  private assertOpen(): void {
    if (this.closed) throw new Error('The event store is closed');
  }

  /** `call`, tried again while the stream has no leader (reads and deduplicated appends are safe to repeat). */
  private duringElection<T>(call: () => Promise<T>): Promise<T> {
    return retryWhileLeaderless(call, { budgetMs: this.electionRetryMs, timeoutIsSafe: true, clock: this.clock });
  }

  /**
   * A replay's bound: `replayTimeoutMs` from now (failing with `late()`'s text) or `close`, whichever comes
   * first. A read still under way then is left to finish unheard.
   */
  private replayBound(late: () => string): ReplayBound {
    let fail: (error: Error) => void = () => undefined;
    const failed = new Promise<never>((_resolve, reject) => (fail = reject));
    failed.catch(() => undefined);
    const timer = this.clock.setTimeout(() => fail(new Error(late())), this.replayTimeoutMs);
    const abort = (): void => fail(new Error('The event store closed during the replay'));
    this.replays.add(abort);
    return {
      race: <T>(work: Promise<T>): Promise<T> => new Promise<T>((resolve, reject) => {
        work.then(resolve, reject);
        failed.catch(reject);
      }),
      end: () => {
        timer.cancel();
        this.replays.delete(abort);
      },
    };
  }

  /**
   * Whether `seq` may be an event of `subject`: the message there is on that subject (returned), or it is gone
   * (aged out) and the stream did reach that far (true). An id of another session or stream is refused.
   */
  private async holds(subject: string, seq: number): Promise<StoredMsg | boolean> {
    // nats.js v3 answers null for "no message found".
    const stored = await (await this.reader).streams.getMessage(this.stream, { seq });
    if (stored !== null) return stored.subject === subject ? stored : false;
    const info = await (await this.reader).streams.info(this.stream);
    return seq <= info.state.last_seq;
  }

  /** The sequence of the subject's last message, if it has any. */
  private async lastSeq(subject: string): Promise<number | undefined> {
    return (await (await this.reader).streams.getMessage(this.stream, { last_by_subj: subject }))?.seq;
  }

  /** The subject's first message at or after `seq`, from the stream's leader; none when there is none (yet). */
  private async nextOf(subject: string, seq: number): Promise<StoredMsg | undefined> {
    const query: NextBySubjectRequest = { seq, next_by_subj: subject };
    return (await (await this.reader).streams.getMessage(this.stream, query)) ?? undefined;
  }

  /** Headers naming this store as the producer, with the marker `name` set when given. */
  private marker(name?: string): MsgHdrs {
    const hdrs = natsHeaders();
    hdrs.set(PRODUCER_HEADER, this.producerId);
    if (name !== undefined) hdrs.set(name, '1');
    return hdrs;
  }
}

/** `<streamId>.<seq>`; the stream id may hold dots itself. */
function parseEventId(id: string): EventRef | undefined {
  const dot = id.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const seqText = id.slice(dot + 1);
  if (!/^[1-9]\d{0,15}$/.test(seqText)) return undefined;
  const seq = Number(seqText);
  return Number.isSafeInteger(seq) ? { streamId: id.slice(0, dot), seq } : undefined;
}

/** One subject token for an id: as is when plain, else `~` + hex of its UTF-8 (so never `.`, `*`, `>`, space). */
export function subjectToken(id: string): string {
  return /^[A-Za-z0-9_-]+$/.test(id) ? id : `~${Buffer.from(id, 'utf8').toString('hex')}`;
}

/** The event a stored message is, unless it is a marker (priming, start, end). */
function eventOf(msg: StoredMsg, streamId: string): StoredEvent | undefined {
  const headers = msg.header;
  if (headers.get(PRIMING_HEADER) === '1' || headers.get(STREAM_END_HEADER) === '1' || headers.get(STREAM_START_HEADER) === '1') return undefined;
  return { id: `${streamId}.${msg.seq}`, message: msg.string() };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
