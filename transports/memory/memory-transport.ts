/**
 * An in-memory linked pair of transports, for embedding a client and a server in one process and for tests.
 *
 * Delivery is asynchronous (batched per microtask), like every real medium, so no handler ever runs inside
 * the sender's call stack. Each direction's inbox is bounded: past `highWaterMark` queued frames, `send`
 * returns a Promise that settles once the reader has drained the inbox (backpressure), and a reader that
 * never subscribes therefore stops its writer instead of growing memory. A reader may pause (inbound flow
 * control): frames then stay in its inbox, so its peer's writers wait exactly as for a reader that is behind.
 *
 * By default payloads cross as objects (treat them as immutable). With a `codec`, every payload is encoded
 * to bytes and decoded on the other side with the size limit enforced, exactly as a byte medium would.
 */
import { BehaviorSubject, Observable, type Subscriber } from 'rxjs';
import type { Codec } from '../../core/codecs/codec.ts';
import { LocalError } from '../../core/errors.ts';
import { defaultLimits } from '../../core/limits.ts';
import type { AuthInfo } from '../../core/auth.ts';
import type { FrameOrigin, InboundFrame, OutboundFrame, Transport, TransportStatus } from '../../core/transport.ts';
import { envelopeOf } from '../../core/frame-envelope.ts';

export interface MemoryPairOptions {
  /** Encode and decode every payload with this codec (off by default: objects cross as they are). */
  readonly codec?: Codec;
  /** With a codec: the largest encoded message accepted. */
  readonly maxMessageBytes?: number;
  /** Frames queued for a reader before writers are told to wait. */
  readonly highWaterMark?: number;
  /**
   * Who the second transport of the pair (the server's end, by convention `[clientEnd, serverEnd]`) takes its peer
   * to be, as if the medium had verified it: the transport's `auth` and `principal`, and the `origin` of every
   * message it receives, so handlers see it as `ctx.auth` in both eras. For embedding a server behind an identity
   * established elsewhere, and for tests.
   */
  readonly serverAuth?: AuthInfo;
}

export interface MemoryTransport extends Transport {
  /** Open, then closed (with the reason): for tests and tools watching a pair; sessions do not read it. */
  readonly status$: Observable<TransportStatus>;
  /** Delivers raw bytes to the peer as if they came off a wire (needs a codec): for feeding malformed input. */
  sendBytes(bytes: Uint8Array): void;
}

const closedError = (): LocalError => new LocalError('ConnectionClosed', 'The memory transport is closed');

class MemoryEndpoint implements MemoryTransport {
  peer!: MemoryEndpoint;
  /** Held as it subscribed (no teardown closure): one that unsubscribed is closed, and let go by `liveReader`. */
  private reader: Subscriber<InboundFrame> | undefined;
  /** Replaced by a fresh empty array whenever it drains: an array that was pushed to keeps room for 16 frames. */
  private inbox: InboundFrame[] = [];
  private flushScheduled = false;
  private paused = false;
  private closed = false;
  private closeReason: LocalError | undefined;
  /** Writers waiting for this endpoint's inbox to drain. */
  private drainWaiters: Array<() => void> | undefined;
  private statusSubject: BehaviorSubject<TransportStatus> | undefined;
  /** Set on the end whose peer was given an identity (`serverAuth`). */
  principal: string | undefined;
  auth: AuthInfo | undefined;
  private origin: FrameOrigin | undefined;

  constructor(private readonly options: MemoryPairOptions, private readonly highWaterMark: number) {}

  /** A getter, as `incoming$`: an idle end holds no field, Observable or closure for either. */
  get kind(): string {
    return 'memory';
  }

  get incoming$(): Observable<InboundFrame> {
    return new Observable<InboundFrame>((subscriber) => {
      if (this.liveReader !== undefined) {
        subscriber.error(new LocalError('TransportFailed', 'A memory transport feeds exactly one reader'));
        return;
      }
      this.reader = subscriber;
      if (this.inbox.length > 0) this.scheduleFlush();
      else if (this.closed) subscriber.complete();
    });
  }

  /** The reader while it reads; one that unsubscribed (or completed) is forgotten here, as a teardown would. */
  private get liveReader(): Subscriber<InboundFrame> | undefined {
    if (this.reader?.closed === true) this.reader = undefined;
    return this.reader;
  }

  get status$(): Observable<TransportStatus> {
    this.statusSubject ??= new BehaviorSubject<TransportStatus>(
      this.closed ? closedStatus(this.closeReason) : { type: 'open' },
    );
    return this.statusSubject.asObservable();
  }

  send(frame: OutboundFrame): void | Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    const codec = this.options.codec;
    if (codec === undefined) {
      return this.peer.enqueue({ type: 'message', payload: frame.payload, envelope: envelopeOf(frame.payload) });
    }
    return this.peer.enqueue(this.decode(codec, codec.encode(frame.payload)));
  }

  sendBytes(bytes: Uint8Array): void {
    const codec = this.options.codec;
    if (codec === undefined) throw new TypeError('sendBytes needs a memory pair created with a codec');
    if (this.closed) throw closedError();
    void this.peer.enqueue(this.decode(codec, bytes));
  }

  pauseReading(): void {
    this.paused = true;
  }

  resumeReading(): void {
    if (!this.paused) return;
    this.paused = false;
    if (this.inbox.length > 0 || this.closed) this.scheduleFlush();
  }

  async close(reason?: LocalError): Promise<void> {
    if (this.closed) return;
    this.markClosed(reason);
    this.peer.markClosed(reason);
  }

  private decode(codec: Codec, bytes: Uint8Array): InboundFrame {
    try {
      const payload = codec.decode(bytes, this.options.maxMessageBytes ?? defaultLimits.maxMessageBytes);
      return { type: 'message', payload, envelope: envelopeOf(payload) };
    } catch (error) {
      const local = error instanceof LocalError ? error : new LocalError('DecodeFailed', 'Undecodable frame', { cause: error });
      return { type: 'malformed', error: local };
    }
  }

  /** Every message this end receives is attributed to `auth`. */
  authenticatePeer(auth: AuthInfo): void {
    this.auth = auth;
    this.principal = auth.principal;
    this.origin = { principal: auth.principal, auth };
  }

  private enqueue(frame: InboundFrame): void | Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    this.inbox.push(this.origin !== undefined && frame.type === 'message' ? { ...frame, origin: this.origin } : frame);
    this.scheduleFlush();
    if (this.inbox.length < this.highWaterMark) return undefined;
    this.peer.emitStatus({ type: 'backpressure', queued: this.inbox.length });
    return new Promise<void>((resolve) => (this.drainWaiters ??= []).push(resolve));
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.liveReader === undefined || this.paused) return;
    this.flushScheduled = true;
    queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    const reader = this.liveReader;
    if (reader === undefined) return;
    // Deliver only what is queued now; frames sent during delivery wait for the next microtask, so a
    // chatty pair cannot starve the event loop inside one flush. A reader that pauses mid-way keeps the rest.
    let delivered = 0;
    const count = this.inbox.length;
    const inbox = this.inbox;
    while (delivered < count && !this.paused && this.reader === reader && !reader.closed) reader.next(inbox[delivered++] as InboundFrame);
    if (delivered === inbox.length) {
      if (delivered > 0) this.inbox = [];
    } else {
      inbox.splice(0, delivered);
    }
    if (this.paused || this.liveReader !== reader) return;
    const waiters = this.drainWaiters;
    if (waiters !== undefined) {
      this.drainWaiters = undefined;
      this.peer.emitStatus({ type: 'drained' });
      for (const resolve of waiters) resolve();
    }
    if (this.closed && this.inbox.length === 0) reader.complete();
  }

  private markClosed(reason: LocalError | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = reason;
    // Queued frames are still delivered (they were accepted), then the reader completes.
    if (this.inbox.length > 0) this.scheduleFlush();
    else this.liveReader?.complete();
    const waiters = this.drainWaiters;
    this.drainWaiters = undefined;
    if (waiters !== undefined) for (const resolve of waiters) resolve();
    this.emitStatus(closedStatus(reason));
    this.statusSubject?.complete();
  }

  private emitStatus(status: TransportStatus): void {
    this.statusSubject?.next(status);
  }
}

function closedStatus(reason: LocalError | undefined): TransportStatus {
  return reason === undefined ? { type: 'closed' } : { type: 'closed', reason };
}

/** Creates two linked transports: what one sends, the other receives. */
export function createMemoryPair(options: MemoryPairOptions = {}): [MemoryTransport, MemoryTransport] {
  const highWaterMark = options.highWaterMark ?? 1024;
  const a = new MemoryEndpoint(options, highWaterMark);
  const b = new MemoryEndpoint(options, highWaterMark);
  a.peer = b;
  b.peer = a;
  if (options.serverAuth !== undefined) b.authenticatePeer(options.serverAuth);
  return [a, b];
}
