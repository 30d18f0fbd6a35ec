/**
 * Where SSE events wait for a client that reconnects (Streamable HTTP resumability, and the 2025-11-25
 * polling pattern). Every event written on a session's SSE streams is appended first; its id goes out as the
 * SSE `id`. A client that lost a stream sends that id back as `Last-Event-ID` and gets the rest of that stream
 * (never another stream's events).
 *
 * Event ids must be unique within a session and identify their stream (the default encodes
 * `<streamId>.<sequence>`), so `replayAfter` can find the stream from the id alone.
 *
 * A store several processes share (replicas of a gateway, see `restoreSession`) may also implement `follow`
 * and `endStream`: a client that lost a request stream whose request runs in another process then resumes it
 * here and gets its events as they are appended there, up to its answer.
 */
import type { Observable } from 'rxjs';
import type { RequestId } from '../../../core/jsonrpc.ts';

export interface StoredEvent {
  readonly id: string;
  /** The JSON-RPC message as JSON text, as it went out in the event's `data`. */
  readonly message: string;
}

export interface ReplayResult {
  /** The stream the id belongs to. */
  readonly streamId: string;
  /** That stream's stored events after the id, oldest first. */
  readonly events: readonly StoredEvent[];
}

export interface FollowOptions {
  /**
   * Watch the process appending to the stream (default true): a follow whose producer is gone fails with a
   * {@link StreamAbandonedError} instead of waiting for an end that cannot come. False for a stream that several
   * processes append to (a shared standalone stream), where one of them going away ends nothing.
   */
  readonly watchProducer?: boolean;
}

/**
 * A followed stream will never end: the process producing it is gone (it died, or lost its connection to the
 * store). `unanswered` are the requests the stream was to answer (as `startStream` recorded them), which the
 * follower answers with an error so that its client does not wait for nothing.
 */
export class StreamAbandonedError extends Error {
  constructor(message: string, readonly unanswered: readonly RequestId[]) {
    super(message);
    this.name = 'StreamAbandonedError';
  }
}

export interface EventStore {
  /**
   * Stores one event and returns its id. `message` is JSON text; `null` asks only for an id (a priming event,
   * which carries no data and is never replayed). May return a Promise (the transport then waits: ordering
   * within a session is kept).
   */
  append(sessionId: string, streamId: string, message: string | null): string | Promise<string>;
  /** The events of `lastEventId`'s stream that follow it; undefined when the id is not one of this session's. */
  replayAfter(sessionId: string, lastEventId: string): ReplayResult | undefined | Promise<ReplayResult | undefined>;
  /** Forgets a session (it ended). */
  dropSession(sessionId: string): void | Promise<void>;
  /**
   * Optional, with `endStream`: the events of `lastEventId`'s stream after it, then those appended later by any
   * process, completing once that stream ended (`endStream`); undefined when the id is not one of this session's.
   * Unsubscribing stops following. Used when the stream is not running in this process.
   */
  follow?(sessionId: string, lastEventId: string, options?: FollowOptions): Observable<StoredEvent> | undefined;
  /**
   * Optional, with `follow`: the request stream `streamId` begins, to answer `requestIds`. A store that watches
   * producers names them in the {@link StreamAbandonedError} of a follow whose producer is gone.
   */
  startStream?(sessionId: string, streamId: string, requestIds: readonly RequestId[]): void | Promise<void>;
  /**
   * Optional, with `follow`: the request stream `streamId` is over (its answer was stored, or nothing is left to
   * answer). Followers of it complete after its last event.
   */
  endStream?(sessionId: string, streamId: string): void | Promise<void>;
}

export interface InMemoryEventStoreOptions {
  /** Events kept per session (default 1000); the oldest go first. */
  readonly maxEventsPerSession?: number;
  /** Characters of message text kept per session (default 4 Mi); the newest event is always kept. */
  readonly maxCharsPerSession?: number;
  /** Events kept over all sessions (default 100 000). */
  readonly maxEvents?: number;
  /** Characters kept over all sessions (default 64 Mi). */
  readonly maxChars?: number;
}

/** A stored event. Its id (`<streamId>.<seq>`) is made again when replayed, not kept: most are never replayed. */
interface Entry {
  readonly sessionId: string;
  readonly streamId: string;
  readonly seq: number;
  readonly message: string;
  evicted: boolean;
}

interface SessionLog {
  seq: number;
  /**
   * Live entries, oldest first, from `head`. Made with its first entry (an array literal of one): an empty array
   * that is pushed to grows room for 16, and most sessions keep one event (their initialize answer).
   */
  entries: Entry[];
  head: number;
  count: number;
  chars: number;
}

/**
 * The default store: bounded by count and size, per session and in total, dropping the oldest events first.
 * Appends and replays are synchronous, so a replay and the live stream after it never miss an event.
 */
export class InMemoryEventStore implements EventStore {
  private readonly sessions = new Map<string, SessionLog>();
  /** Every live entry in append order, for the global bounds (evicted ones are skipped lazily). */
  private readonly all: Entry[] = [];
  private allHead = 0;
  /** Evicted entries still in `all` (past its head): compacted away once they outnumber the live ones. */
  private allDead = 0;
  private count = 0;
  private chars = 0;
  private readonly maxEventsPerSession: number;
  private readonly maxCharsPerSession: number;
  private readonly maxEvents: number;
  private readonly maxChars: number;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEventsPerSession = options.maxEventsPerSession ?? 1000;
    this.maxCharsPerSession = options.maxCharsPerSession ?? 4 * 1024 * 1024;
    this.maxEvents = options.maxEvents ?? 100_000;
    this.maxChars = options.maxChars ?? 64 * 1024 * 1024;
  }

  /** Events held now, over all sessions. */
  get size(): number {
    return this.count;
  }

  append(sessionId: string, streamId: string, message: string | null): string {
    let log = this.sessions.get(sessionId);
    if (log === undefined) this.sessions.set(sessionId, (log = { seq: 0, entries: [], head: 0, count: 0, chars: 0 }));
    const seq = ++log.seq;
    const id = `${streamId}.${seq}`;
    if (message === null) return id;
    const entry: Entry = { sessionId, streamId, seq, message, evicted: false };
    if (log.entries.length === 0) log.entries = [entry];
    else log.entries.push(entry);
    log.count++;
    log.chars += message.length;
    this.all.push(entry);
    this.count++;
    this.chars += message.length;
    while (log.count > 1 && (log.count > this.maxEventsPerSession || log.chars > this.maxCharsPerSession)) {
      this.evict(log.entries[log.head] as Entry);
    }
    while (this.count > 1 && (this.count > this.maxEvents || this.chars > this.maxChars)) {
      const oldest = this.all[this.allHead] as Entry;
      if (oldest === entry) break;
      this.evict(oldest);
    }
    return id;
  }

  replayAfter(sessionId: string, lastEventId: string): ReplayResult | undefined {
    const log = this.sessions.get(sessionId);
    const dot = lastEventId.lastIndexOf('.');
    if (log === undefined || dot <= 0) return undefined;
    const streamId = lastEventId.slice(0, dot);
    const seqText = lastEventId.slice(dot + 1);
    if (!/^\d+$/.test(seqText)) return undefined;
    const after = Number(seqText);
    if (after > log.seq) return undefined;
    const events: StoredEvent[] = [];
    for (let index = log.head; index < log.entries.length; index++) {
      const entry = log.entries[index] as Entry;
      if (!entry.evicted && entry.streamId === streamId && entry.seq > after) events.push({ id: `${entry.streamId}.${entry.seq}`, message: entry.message });
    }
    return { streamId, events };
  }

  dropSession(sessionId: string): void {
    const log = this.sessions.get(sessionId);
    if (log === undefined) return;
    this.sessions.delete(sessionId);
    for (let index = log.head; index < log.entries.length; index++) {
      const entry = log.entries[index] as Entry;
      if (entry.evicted) continue;
      entry.evicted = true;
      this.allDead++;
      this.count--;
      this.chars -= entry.message.length;
    }
    this.compactAll();
  }

  private evict(entry: Entry): void {
    if (entry.evicted) return;
    entry.evicted = true;
    this.allDead++;
    this.count--;
    this.chars -= entry.message.length;
    const log = this.sessions.get(entry.sessionId);
    if (log !== undefined) {
      log.count--;
      log.chars -= entry.message.length;
      while (log.head < log.entries.length && (log.entries[log.head] as Entry).evicted) log.head++;
      if (log.head > 64 && log.head * 2 > log.entries.length) {
        log.entries.splice(0, log.head);
        log.head = 0;
      }
    }
    this.compactAll();
  }

  private compactAll(): void {
    while (this.allHead < this.all.length && (this.all[this.allHead] as Entry).evicted) {
      this.allHead++;
      this.allDead--;
    }
    if (this.allDead > this.count + 1024) {
      let kept = 0;
      for (let index = this.allHead; index < this.all.length; index++) {
        const entry = this.all[index] as Entry;
        if (!entry.evicted) this.all[kept++] = entry;
      }
      this.all.length = kept;
      this.allHead = 0;
      this.allDead = 0;
    } else if (this.allHead > 1024 && this.allHead * 2 > this.all.length) {
      this.all.splice(0, this.allHead);
      this.allHead = 0;
    }
  }
}
