/**
 * Pipes two transports into each other, frames unchanged: what one side receives, the other sends. The bridge
 * uses it between a NATS session and a stdio child, and between this process's stdio and NATS.
 *
 * - Each direction keeps a bounded queue and hands frames on one at a time, waiting whenever `send` returns a
 *   promise (the receiver's backpressure). A full queue refuses: a request gets a JSON-RPC error back, a
 *   notification is dropped and reported; nothing grows without bound.
 * - `a` is the asking side (toward clients), `b` the answering side (toward the server). A side is read only
 *   while the pipe can pass on what it says (where its medium can pause), so its peer's writes wait in turn; `a`
 *   also not while its answers wait for it. Answers are never dropped for queue space: they may use a reserve
 *   beyond the bound as large as the bound itself, which only a side that cannot pause could fill.
 * - A request that cannot reach its receiver (the receiver closed, refused it, or reported it undeliverable)
 *   is answered with a JSON-RPC error to its sender, so no peer waits for an answer that cannot come.
 * - When either side ends, what it said last still reaches the other side (bounded by `drainMs`), then the
 *   other side is closed too. `done` settles once both are closed.
 * - The pipe stands where a server session would for `a`: when `b` answers `a`'s `initialize`, `a` hears the
 *   negotiated revision (or the refusal) through its port; when `a` closes an exchange as a cancellation (a NATS
 *   client gone), `b` gets the `notifications/cancelled` it understands for the request that ran there.
 */
import { ErrorCode } from '../../core/error-codes.ts';
import { LocalError } from '../../core/errors.ts';
import { type RequestId, type WirePayload, classify, errorResponse, isAnswerPayload } from '../../core/jsonrpc.ts';
import type { Subscription } from 'rxjs';
import { isLegacyRevision } from '../../core/protocol/versions.ts';
import type { ExchangeKey, InboundFrame, Transport } from '../../core/transport.ts';

export interface PipeOptions {
  /** Frames one direction holds while its receiver is slow or not ready yet (default 1024). */
  readonly maxQueued?: number;
  /** How long an ending side's last frames may take to reach the other side before it is closed anyway (default 2000 ms). */
  readonly drainMs?: number;
  /** Names of the two sides, for reports (default `a`, `b`). */
  readonly names?: readonly [string, string];
  /**
   * The side whose undecodable frames are answered with a JSON-RPC error (no id), as a server answers its
   * client. The other side's are only reported. Default: neither.
   */
  readonly answerMalformedFrom?: 'a' | 'b';
  /** Where the pipe reports what it refused or dropped (default: nowhere). */
  readonly report?: (line: string) => void;
}

/** How a pipe ended: which side ended first, and the reason it gave (undefined: an orderly end). */
export interface PipeEnd {
  readonly first: 'a' | 'b';
  readonly reason: LocalError | undefined;
}

export interface Pipe {
  /** Settles once both transports are closed. */
  readonly done: Promise<PipeEnd>;
  /**
   * Settles once every request `a` sent through the pipe has had its answer back from `b`, or after `ms` (for a
   * graceful end: what is in flight finishes before the pipe closes).
   */
  answered(ms: number): Promise<void>;
  /** Closes both transports (idempotent); resolves once both are closed. */
  close(reason?: LocalError): Promise<void>;
}

const DEFAULT_MAX_QUEUED = 1024;
/** Requests from `a` whose answers are awaited, at most (beyond that, `answered` simply waits its time out). */
const MAX_TRACKED = 65_536;
const DEFAULT_DRAIN_MS = 2000;

/** The ids of the requests a payload carries (one message or a batch). */
export function requestIds(payload: unknown): RequestId[] {
  const items = Array.isArray(payload) ? (payload as readonly unknown[]) : [payload];
  const ids: RequestId[] = [];
  for (const item of items) {
    const classified = classify(item);
    if (classified.kind === 'request') ids.push(classified.message.id);
  }
  return ids;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

interface Side {
  readonly name: string;
  readonly transport: Transport;
  /** Its incoming$ ended, or its close() resolved. */
  ended: boolean;
  closing: Promise<void> | undefined;
}

/** One direction: frames from one side, queued and sent to the other. */
class Flow {
  private readonly queue: WirePayload[] = [];
  private running = false;
  private pumping: Promise<void> = Promise.resolve();
  /** The receiver is gone: nothing more is queued. */
  private stopped = false;
  /** Waiting for the receiver since a send returned a promise, until the queue is empty again. */
  backedUp = false;
  reverse!: Flow;

  constructor(
    readonly from: string,
    readonly to: string,
    private readonly receiver: Transport,
    private readonly maxQueued: number,
    private readonly report: (line: string) => void,
    private readonly onBackedUp: () => void,
  ) {}

  push(payload: WirePayload): void {
    if (this.stopped) return this.bounce(payload, `${this.to} is closed`);
    if (this.queue.length >= this.maxQueued && !(isAnswerPayload(payload) && this.queue.length < 2 * this.maxQueued)) {
      this.report(`${this.from} -> ${this.to}: ${this.maxQueued} frames wait for ${this.to}; refusing more`);
      return this.bounce(payload, `${this.to} is not keeping up (${this.maxQueued} messages wait for it)`);
    }
    this.queue.push(payload);
    if (!this.running) {
      this.running = true;
      this.pumping = this.pump();
    }
  }

  /** Settles once nothing waits and nothing is being sent. */
  idle(): Promise<void> {
    return this.pumping;
  }

  /**
   * The receiver ended: nothing more is taken, and requests still waiting are answered with errors (unless
   * `quietly`: both sides are going, nobody is left to answer).
   */
  stop(why: string, quietly = false): void {
    this.stopped = true;
    const waiting = this.queue.splice(0);
    if (!quietly) for (const payload of waiting) this.bounce(payload, why);
  }

  /** Answers, through the other direction, every request in a payload this direction could not deliver. */
  bounce(payload: unknown, why: string): void {
    const ids = requestIds(payload);
    if (ids.length === 0) {
      this.report(`${this.from} -> ${this.to}: dropped a message (${why})`);
      return;
    }
    for (const id of ids) {
      this.reverse.push(errorResponse(id, { code: ErrorCode.InternalError, message: `The bridge could not deliver the request: ${why}` }));
    }
  }

  private async pump(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const payload = this.queue.shift() as WirePayload;
        try {
          const sent = this.receiver.send({ payload });
          if (sent !== undefined) {
            this.setBackedUp(true);
            await sent;
          }
        } catch (error) {
          this.bounce(payload, describe(error));
        }
      }
    } finally {
      // Runs in the same turn as the last empty-queue check: a push after it starts a new pump.
      this.running = false;
      this.setBackedUp(false);
    }
  }

  private setBackedUp(backedUp: boolean): void {
    if (this.backedUp === backedUp) return;
    this.backedUp = backedUp;
    this.onBackedUp();
  }
}

/** Connects `a` and `b` (both are subscribed at once); see the module comment for what it guarantees. */
export function pipeTransports(a: Transport, b: Transport, options: PipeOptions = {}): Pipe {
  const [nameA, nameB] = options.names ?? ['a', 'b'];
  const report = options.report ?? (() => undefined);
  const maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED;
  const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
  const sides: readonly [Side, Side] = [
    { name: nameA, transport: a, ended: false, closing: undefined },
    { name: nameB, transport: b, ended: false, closing: undefined },
  ];
  const paused = [false, false];
  // Each side is read only while what it says can be passed on. The asking side `a` is also not read while its
  // answers wait for it (it is the end of the chain, like a session's peer); the answering side `b` is read while
  // requests wait for it, because it may itself have stopped reading until its answers are taken.
  const updateReading = (): void => {
    for (const index of [0, 1] as const) {
      const pause = index === 0 ? toB.backedUp || toA.backedUp : toA.backedUp;
      if (pause === paused[index] || sides[index].ended) continue;
      paused[index] = pause;
      if (pause) sides[index].transport.pauseReading?.();
      else sides[index].transport.resumeReading?.();
    }
  };
  const toB = new Flow(nameA, nameB, b, maxQueued, report, updateReading);
  const toA = new Flow(nameB, nameA, a, maxQueued, report, updateReading);
  toB.reverse = toA;
  toA.reverse = toB;
  const outward = [toB, toA] as const;

  let subscriptions: Subscription[] = [];
  let first: PipeEnd | undefined;
  let resolveDone!: (end: PipeEnd) => void;
  const done = new Promise<PipeEnd>((resolve) => (resolveDone = resolve));

  const closeSide = (index: 0 | 1, reason: LocalError | undefined): Promise<void> => {
    const side = sides[index];
    side.closing ??= side.transport.close(reason).catch(() => undefined).then(() => ended(index, undefined));
    return side.closing;
  };

  const ended = (index: 0 | 1, reason: LocalError | undefined): void => {
    const side = sides[index];
    if (side.ended) return;
    side.ended = true;
    first ??= { first: index === 0 ? 'a' : 'b', reason };
    if (sides[0].ended && sides[1].ended) {
      toA.stop('the bridge closed', true);
      toB.stop('the bridge closed', true);
      for (const subscription of subscriptions) subscription.unsubscribe();
      resolveDone(first);
      return;
    }
    void finishOther(index, reason);
  };

  /** Side `index` ended: its last words reach the other side, then the other side closes. */
  const finishOther = async (index: 0 | 1, reason: LocalError | undefined): Promise<void> => {
    const other = index === 0 ? 1 : 0;
    const toEnded = outward[other];
    toEnded.stop(`${sides[index].name} ended${reason === undefined ? '' : `: ${reason.message}`}`);
    // A send in flight toward the ended side settles (and is answered) before the other side goes.
    await bounded(toEnded.idle(), drainMs);
    await bounded(outward[index].idle(), drainMs);
    await closeSide(other, reason);
  };

  // The ids of a's requests not answered by b yet, and who waits for there to be none.
  const awaited = new Set<RequestId>();
  let whenAnswered: (() => void) | undefined;
  // The pipe stands where a session would for `a`: it tells `a` how `b` answered `a`'s handshake, and turns an
  // exchange `a` closed as a cancellation into the cancellation `b` understands.
  let handshakeId: RequestId | undefined;
  const exchangeOf = new Map<RequestId, ExchangeKey>();
  const track = (index: 0 | 1, payload: unknown, exchange: ExchangeKey | undefined): void => {
    if (index === 0) {
      for (const item of Array.isArray(payload) ? (payload as readonly unknown[]) : [payload]) {
        const classified = classify(item);
        if (classified.kind !== 'request' || awaited.size >= MAX_TRACKED) continue;
        const id = classified.message.id;
        awaited.add(id);
        if (exchange !== undefined) exchangeOf.set(id, exchange);
        if (classified.message.method === 'initialize') handshakeId = id;
      }
      return;
    }
    for (const item of Array.isArray(payload) ? (payload as readonly unknown[]) : [payload]) {
      const classified = classify(item);
      if (classified.kind !== 'response' || classified.message.id === undefined) continue;
      const id = classified.message.id;
      awaited.delete(id);
      exchangeOf.delete(id);
      if (id === handshakeId) {
        handshakeId = undefined;
        const revision = 'result' in classified.message ? classified.message.result['protocolVersion'] : undefined;
        a.negotiated?.(isLegacyRevision(revision) ? revision : undefined);
      }
    }
    if (awaited.size === 0) whenAnswered?.();
  };
  const cancelExchange = (exchange: ExchangeKey): void => {
    for (const [id, of] of exchangeOf) {
      if (of !== exchange) continue;
      exchangeOf.delete(id);
      toB.push({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'The client is gone' } });
    }
  };

  const onFrame = (index: 0 | 1, frame: InboundFrame): void => {
    const flow = outward[index];
    switch (frame.type) {
      case 'message':
        track(index, frame.payload, frame.exchange);
        flow.push(frame.payload as WirePayload);
        return;
      case 'undeliverable':
        // The side could not deliver what the other side sent through the pipe: its sender hears why.
        flow.reverse.bounce(frame.payload, frame.error.message);
        return;
      case 'malformed':
        report(`${sides[index].name} sent an undecodable frame: ${frame.error.message}`);
        if (options.answerMalformedFrom === (index === 0 ? 'a' : 'b')) {
          const code = frame.error.code === 'FrameTooLarge' ? ErrorCode.InvalidRequest : ErrorCode.ParseError;
          flow.reverse.push(errorResponse(undefined, { code, message: `${code === ErrorCode.ParseError ? 'Parse error' : 'Invalid request'}: ${frame.error.message}` }));
        }
        return;
      case 'exchange-closed':
        // Only a medium that reads leaving an exchange as a cancellation (NATS) makes it one; the other side hears
        // it the legacy way. Otherwise the answer is still wanted.
        if (index === 0 && frame.cancels === true) cancelExchange(frame.exchange);
        return;
    }
  };

  for (const index of [0, 1] as const) {
    const subscription = sides[index].transport.incoming$.subscribe({
      next: (frame) => onFrame(index, frame),
      error: (error: unknown) => ended(index, error instanceof LocalError ? error : new LocalError('TransportFailed', `${sides[index].name} failed: ${describe(error)}`, { cause: error })),
      complete: () => ended(index, undefined),
    });
    if (sides[0].ended && sides[1].ended) subscription.unsubscribe();
    else subscriptions = [...subscriptions, subscription];
  }

  let closing: Promise<void> | undefined;
  return {
    done,
    async answered(ms) {
      if (awaited.size === 0 || (sides[0].ended && sides[1].ended)) return;
      await bounded(new Promise<void>((resolve) => {
        whenAnswered = resolve;
        void done.then(() => resolve());
      }), ms);
      whenAnswered = undefined;
    },
    close(reason) {
      closing ??= (async () => {
        toA.stop('the bridge closed', true);
        toB.stop('the bridge closed', true);
        await Promise.all([closeSide(0, reason), closeSide(1, reason)]);
      })();
      return closing;
    },
  };
}

/** Waits for `promise`, at most `ms`. */
async function bounded(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
