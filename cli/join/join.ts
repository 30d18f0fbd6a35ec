/**
 * Joins two transports frame for frame: the `front` (toward the clients: it asks) and the `back` (toward the
 * servers: it answers). The gateway joins an HTTP connection to a NATS client this way (cli/gateway/forward.ts),
 * the bridge a NATS session to a stdio child, or stdio to NATS (cli/bridge/pipe.ts). What it guarantees:
 *
 * - Each direction is a bounded {@link Flow}: one send at a time, waiting whenever `send` returns a promise, with
 *   a reserve for answers. A side is read only while what it says can be passed on (where its medium can
 *   pause), so its peer's writes wait in turn; the front also not while its answers wait for it.
 * - Every request of the front gets exactly one answer: the back's, or an error the join words when the request
 *   was refused (queue full, too many in flight, closing, `prepare` failed), could not be delivered (the back's
 *   medium threw or reported it undeliverable) or can no longer be answered (the back ended, the join closed).
 *   The back's requests the front cannot take are answered to the back the same way.
 * - Exchange mapping: each front request's exchange key is kept until its answer, which goes out on it, as do
 *   the back's notifications related to it (a NATS reply subject names the request). When the front closes an
 *   exchange as a cancellation, the back gets `notifications/cancelled` for the requests on it (if enabled).
 * - The join stands where a session would for the front: when the back answers the front's `initialize`, the
 *   front hears the negotiated revision (before the answer goes) or the refusal (after it went) through its port,
 *   and `onInitialized` runs before the answer leaves.
 * - When a side ends, what it said last reaches the other side (bounded by `flushMs`), then the other closes.
 *   `close({ drainMs })` first refuses new requests and gives those in flight `drainMs` for their answers.
 */
import { ErrorCode } from '../../core/error-codes.ts';
import { LocalError } from '../../core/errors.ts';
import { type JsonObject, type JsonRpcRequest, type RequestId, type WirePayload, classify, errorResponse, isRequestId } from '../../core/jsonrpc.ts';
import { isLegacyRevision } from '../../core/protocol/versions.ts';
import type { ExchangeKey, GracefulCloseOptions, InboundFrame, Transport } from '../../core/transport.ts';
import { Flow, type Passage } from './flow.ts';
import { InFlight } from './in-flight.ts';
import { describe, itemsOf, requestIds } from './payload.ts';
import { type Undelivered, detail } from './undelivered.ts';

export type MessageFrame = InboundFrame & { readonly type: 'message' };

export interface JoinHooks {
  /**
   * Runs before each front message goes to the back, in order (later frames wait behind it). When it fails, the
   * frame's requests are answered with its reason (kind `prepare`) and the frame is not forwarded.
   */
  readonly prepare?: (frame: MessageFrame) => void | Promise<void>;
  /** The back answered the front's `initialize` with a result; the answer goes to the front once this settled. */
  readonly onInitialized?: (request: JsonObject, result: JsonObject) => void | Promise<void>;
  /** Both sides are closed. */
  readonly onClosed?: () => void;
}

export interface JoinOptions {
  /** Frames one direction holds while its receiver is slow or not ready yet (default 1024). */
  readonly maxQueued?: number;
  /** Front requests awaiting their answer at once; a frame that would pass it is refused whole (default 4096). */
  readonly maxInFlight?: number;
  /** How long an ending side's last frames, or a closing join's last answers, may take to go out (default 2000 ms). */
  readonly flushMs?: number;
  /** Names of the two sides, for reports and refusals (default `front`, `back`). */
  readonly names?: readonly [front: string, back: string];
  /** Answer the front's undecodable frames with a JSON-RPC error (no id), as a server answers its client (default: only report). */
  readonly answerMalformedFromFront?: boolean;
  /** Turn a front exchange closed as a cancellation into `notifications/cancelled` for the back (default true). */
  readonly cancelOnExchangeClose?: boolean;
  /** The message of the error answering a request the join could not carry, or answer (`to`: the receiver's name). */
  readonly words: (undelivered: Undelivered, to: string) => string;
  /** Where the join reports what it refused or dropped (default: nowhere). */
  readonly report?: (line: string) => void;
  readonly hooks?: JoinHooks;
}

/** How a join ended: which side ended first, and the reason it gave (undefined: an orderly end). */
export interface JoinEnd {
  readonly first: 'front' | 'back';
  readonly reason: LocalError | undefined;
}

export interface Join {
  /** Settles once both transports are closed. */
  readonly done: Promise<JoinEnd>;
  /** Front requests awaiting their answer now. */
  readonly inFlight: number;
  /** Settles once no front request awaits its answer, or after `ms`. */
  answered(ms: number): Promise<void>;
  /**
   * Closes both sides (idempotent). With `drainMs`, gracefully: new requests are refused at once, those in flight
   * have up to `drainMs` for their answers; whatever is still open then is answered with an error (kind
   * `unanswered`), and those last answers get `flushMs` to go out.
   */
  close(options?: GracefulCloseOptions): Promise<void>;
}

const DEFAULT_MAX_QUEUED = 1024;
const DEFAULT_MAX_IN_FLIGHT = 4096;
const DEFAULT_FLUSH_MS = 2000;
/** Requests whose end is remembered (so a late answer to one is not a second one). */
const REMEMBER_SETTLED = 4096;
const FRONT = 0;
const BACK = 1;
type SideIndex = typeof FRONT | typeof BACK;

interface Side {
  readonly name: string;
  readonly transport: Transport;
  /** Its incoming$ ended, or its close() resolved. */
  ended: boolean;
  closing: Promise<void> | undefined;
}

export function join(front: Transport, back: Transport, options: JoinOptions): Join {
  const [frontName, backName] = options.names ?? ['front', 'back'];
  const report = options.report ?? (() => undefined);
  const maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const flushMs = options.flushMs ?? DEFAULT_FLUSH_MS;
  const hooks = options.hooks ?? {};
  const sides: readonly [Side, Side] = [
    { name: frontName, transport: front, ended: false, closing: undefined },
    { name: backName, transport: back, ended: false, closing: undefined },
  ];
  const inFlight = new InFlight(REMEMBER_SETTLED);
  /** Set by close(): new front requests are refused. */
  let closingDown = false;

  const paused = [false, false];
  // Each side is read only while what it says can be passed on. The front is also not read while its answers wait
  // for it (it is the end of the chain, like a session's peer); the back is read while requests wait for it,
  // because it may itself have stopped reading until its answers are taken.
  const updateReading = (): void => {
    for (const index of [FRONT, BACK] as const) {
      const pause = index === FRONT ? toBack.backedUp || toFront.backedUp : toFront.backedUp;
      if (pause === paused[index] || sides[index].ended) continue;
      paused[index] = pause;
      if (pause) sides[index].transport.pauseReading?.();
      else sides[index].transport.resumeReading?.();
    }
  };

  /**
   * Answers request `id` of the front with an error, on its exchange, if it is still open: a request that ended
   * already (answered, or cancelled: nobody waits) gets nothing more. With `unseen`, a request the join does not
   * know is answered too (a medium reporting undeliverable what it was not given through the join: its sender waits
   * all the same), unless the join answered it already.
   */
  const answerFront = (id: RequestId, why: Undelivered, unseen = false): void => {
    let open = inFlight.settle(id, 'join');
    if (open === undefined) {
      if (!unseen || inFlight.settledBy(id) !== undefined) return;
      inFlight.add(id, undefined);
      open = inFlight.settle(id, 'join');
    }
    toFront.push({ payload: errorResponse(id, { code: ErrorCode.InternalError, message: options.words(why, backName) }), exchange: open?.exchange });
  };
  /** What a flow could not deliver: its requests are answered to their sender, anything else is reported. */
  const refusedToBack = (passage: Passage, why: Undelivered): void => {
    const ids = requestIds(passage.payload);
    if (ids.length === 0) report(`${frontName} -> ${backName}: dropped a message (${detail(why, backName)})`);
    for (const id of ids) answerFront(id, why, why.kind === 'reported');
  };
  const refusedToFront = (passage: Passage, why: Undelivered): void => {
    const ids = requestIds(passage.payload);
    if (ids.length === 0) report(`${backName} -> ${frontName}: dropped a message (${detail(why, frontName)})`);
    for (const id of ids) toBack.push({ payload: errorResponse(id, { code: ErrorCode.InternalError, message: options.words(why, frontName) }) });
  };
  const toBack = new Flow(frontName, backName, back, maxQueued, refusedToBack, report, updateReading);
  const toFront = new Flow(backName, frontName, front, maxQueued, refusedToFront, report, updateReading);
  const toward = [toFront, toBack] as const;
  const outOf = [toBack, toFront] as const;

  // --- front to back ---

  const fromFront = (frame: InboundFrame): void => {
    switch (frame.type) {
      case 'message':
        return frontMessage(frame);
      case 'undeliverable':
        // The front could not deliver a request of the back's: the back hears why.
        return refusedToFront({ payload: frame.payload }, { kind: 'reported', why: frame.error.message });
      case 'malformed':
        report(`${frontName} sent an undecodable frame: ${frame.error.message}`);
        if (options.answerMalformedFromFront === true) {
          const code = frame.error.code === 'FrameTooLarge' ? ErrorCode.InvalidRequest : ErrorCode.ParseError;
          toFront.push({ payload: errorResponse(undefined, { code, message: `${code === ErrorCode.ParseError ? 'Parse error' : 'Invalid request'}: ${frame.error.message}` }), exchange: frame.exchange });
        }
        return;
      case 'exchange-closed':
        // Only a medium that reads leaving an exchange as a cancellation makes it one; the back hears it the
        // legacy way. Otherwise the answer is still wanted.
        if (frame.cancels === true && options.cancelOnExchangeClose !== false) cancelExchange(frame.exchange);
        return;
    }
  };

  const frontMessage = (frame: MessageFrame): void => {
    const requests: JsonRpcRequest[] = [];
    for (const item of itemsOf(frame.payload)) {
      const classified = classify(item);
      if (classified.kind === 'request') requests.push(classified.message);
    }
    const refusal: Undelivered | undefined = requests.length === 0
      ? undefined
      : closingDown
        ? { kind: 'closing' }
        : inFlight.size + requests.length > maxInFlight
          ? { kind: 'in-flight', max: maxInFlight }
          : undefined;
    for (const request of requests) inFlight.add(request.id, frame.exchange);
    if (refusal !== undefined) {
      // Refused whole (a batch too): every request of the frame hears why, none is forwarded.
      for (const request of requests) answerFront(request.id, refusal);
      return;
    }
    const handshake = requests.find((request) => request.method === 'initialize');
    if (handshake !== undefined) inFlight.initialize = { id: handshake.id, params: handshake.params ?? {} };
    const prepare = hooks.prepare;
    toBack.push({
      payload: frame.payload as WirePayload,
      // Tool parameters the client mirrored into headers go on with the body: only the server can check them.
      mirror: frame.paramHeaders,
      ...(prepare === undefined ? {} : { before: () => prepare(frame) }),
    });
  };

  const cancelExchange = (exchange: ExchangeKey): void => {
    // The front is gone from this exchange: nobody waits for these answers any more.
    for (const id of inFlight.onExchange(exchange)) {
      inFlight.settle(id, 'cancel');
      toBack.push({ payload: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'The client is gone' } } });
    }
  };

  // --- back to front ---

  const fromBack = (frame: InboundFrame): void => {
    switch (frame.type) {
      case 'message':
        return backMessage(frame);
      case 'undeliverable':
        // The back could not deliver a request of the front's (no responders, silence): the front hears why.
        return refusedToBack({ payload: frame.payload }, { kind: 'reported', why: frame.error.message });
      case 'malformed':
        report(`${backName} sent an undecodable frame: ${frame.error.message}`);
        return;
      case 'exchange-closed':
        return;
    }
  };

  const backMessage = (frame: MessageFrame): void => {
    const payload = frame.payload as WirePayload;
    const classified = classify(payload);
    if (classified.kind === 'response' && classified.message.id !== undefined) {
      const id = classified.message.id;
      const open = inFlight.settle(id, 'back');
      if (open === undefined && inFlight.settledBy(id) === 'join') {
        // The join answered it already (refused, undeliverable, closed): one answer only.
        report(`${backName} -> ${frontName}: dropped a late answer to request ${JSON.stringify(id)}, answered already`);
        return;
      }
      const handshake = inFlight.initialize;
      if (handshake !== undefined && id === handshake.id) {
        inFlight.initialize = undefined;
        return toFront.push(handshakeAnswer(payload, open?.exchange, handshake.params, 'result' in classified.message ? classified.message.result : undefined));
      }
      return toFront.push({ payload, exchange: open?.exchange });
    }
    if (classified.kind === 'batch') {
      // A 2025-03-26 batch of answers goes out on the exchange of its requests.
      let exchange: ExchangeKey | undefined;
      for (const item of classified.items) {
        const id = (item as { readonly id?: unknown }).id;
        if (!isRequestId(id) || 'method' in (item as object)) continue;
        exchange ??= inFlight.settle(id, 'back')?.exchange;
      }
      return toFront.push({ payload, exchange });
    }
    // A notification (or request) on a request's reply subject travels with that request.
    const related = frame.exchange === undefined ? undefined : inFlight.exchangeOf(frame.exchange as RequestId);
    toFront.push({ payload, exchange: related });
  };

  /**
   * The back's answer to the front's `initialize`: the front hears the negotiated revision before the answer goes
   * (a medium that keeps records needs it first), or the refusal once the answer went (it ends the session then).
   */
  const handshakeAnswer = (payload: WirePayload, exchange: ExchangeKey | undefined, request: JsonObject, result: JsonObject | undefined): Passage => {
    const revision = result?.['protocolVersion'];
    if (result === undefined || !isLegacyRevision(revision)) {
      return { payload, exchange, after: () => front.negotiated?.(undefined) };
    }
    const onInitialized = hooks.onInitialized;
    return {
      payload,
      exchange,
      before: () => {
        front.negotiated?.(revision);
        if (onInitialized === undefined) return undefined;
        // Its failure is the hook's to report: the client gets its answer anyway.
        return Promise.resolve()
          .then(() => onInitialized(request, result))
          .catch((error: unknown) => report(`onInitialized failed: ${describe(error)}`));
      },
    };
  };

  // --- ending ---

  let first: JoinEnd | undefined;
  let resolveDone!: (end: JoinEnd) => void;
  const done = new Promise<JoinEnd>((resolve) => (resolveDone = resolve));
  let subscriptions: Array<{ unsubscribe(): void }> = [];
  let resolveFirstEnd!: () => void;
  /** Settles when either side ends: a graceful drain under way stops waiting then (nothing more can cross). */
  const firstEnd = new Promise<void>((resolve) => (resolveFirstEnd = resolve));

  const closeSide = (index: SideIndex, reason: LocalError | undefined): Promise<void> => {
    const side = sides[index];
    side.closing ??= side.transport.close(reason).catch(() => undefined).then(() => ended(index, undefined));
    return side.closing;
  };

  const ended = (index: SideIndex, reason: LocalError | undefined): void => {
    const side = sides[index];
    if (side.ended) return;
    side.ended = true;
    first ??= { first: index === FRONT ? 'front' : 'back', reason };
    resolveFirstEnd();
    if (sides[FRONT].ended && sides[BACK].ended) {
      toFront.stop('the connection closed', true);
      toBack.stop('the connection closed', true);
      for (const subscription of subscriptions) subscription.unsubscribe();
      subscriptions = [];
      resolveDone(first);
      hooks.onClosed?.();
      return;
    }
    void finishOther(index, reason);
  };

  /** Side `index` ended: what waits for it is refused, its last words reach the other side, then that closes. */
  const finishOther = async (index: SideIndex, reason: LocalError | undefined): Promise<void> => {
    const other: SideIndex = index === FRONT ? BACK : FRONT;
    const why = `${sides[index].name} ended${reason === undefined ? '' : `: ${reason.message}`}`;
    toward[index].stop(why);
    if (index === BACK) {
      // What the back had not answered when it ended, it never will.
      for (const id of inFlight.ids()) answerFront(id, { kind: 'unanswered', id, drainMs: 0, why });
    } else {
      // Nobody is left to answer.
      for (const id of inFlight.ids()) inFlight.settle(id, 'cancel');
    }
    // A send in flight toward the ended side settles (and is answered) before the other side goes.
    await bounded(toward[index].idle(), flushMs);
    await bounded(outOf[index].idle(), flushMs);
    await closeSide(other, reason);
    // The ended side's medium is let go too (idempotent where it closed itself).
    await closeSide(index, reason);
  };

  let closing: Promise<void> | undefined;
  const shutDown = async (drainMs: number, closeFlushMs: number, reason: LocalError | undefined): Promise<void> => {
    closingDown = true;
    if (drainMs > 0 && inFlight.size > 0) await bounded(Promise.race([inFlight.whenEmpty(), firstEnd]), drainMs);
    const why = drainMs > 0 ? `the close deadline of ${drainMs} ms passed` : 'the connection closed';
    for (const id of inFlight.ids()) answerFront(id, { kind: 'unanswered', id, drainMs, why });
    // The last answers reach the front before it closes (bounded: a front that takes nothing is closed anyway).
    await bounded(toFront.idle(), closeFlushMs);
    toFront.stop('the connection closed', true);
    toBack.stop('the connection closed', true);
    await Promise.all([closeSide(FRONT, reason), closeSide(BACK, reason)]);
  };

  // The back first: a send to it may report a frame undeliverable at once, and that must not go unheard.
  for (const index of [BACK, FRONT] as const) {
    const onFrame = index === FRONT ? fromFront : fromBack;
    const subscription = sides[index].transport.incoming$.subscribe({
      next: onFrame,
      error: (error: unknown) => ended(index, error instanceof LocalError ? error : new LocalError('TransportFailed', `${sides[index].name} failed: ${describe(error)}`, { cause: error })),
      complete: () => ended(index, undefined),
    });
    if (sides[FRONT].ended && sides[BACK].ended) subscription.unsubscribe();
    else subscriptions = [...subscriptions, subscription];
  }

  return {
    done,
    get inFlight() {
      return inFlight.size;
    },
    async answered(ms) {
      if (inFlight.size === 0 || (sides[FRONT].ended && sides[BACK].ended)) return;
      await bounded(Promise.race([inFlight.whenEmpty(), done.then(() => undefined)]), ms);
    },
    close(closeOptions = {}) {
      closing ??= shutDown(closeOptions.drainMs ?? 0, closeOptions.flushMs ?? flushMs, closeOptions.reason);
      return closing;
    },
  };
}

/** Waits for `promise`, at most `ms`. */
async function bounded(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
