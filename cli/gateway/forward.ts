/**
 * Joins a front connection (an HTTP session or POST, whose client is the MCP client) to a back connection (a
 * NATS client transport to the servers), frames unchanged. Front frames carry exchange keys (the POST stream
 * each request came on); answers and related notifications from the back go out on the exchange of their
 * request. A request the back could not deliver, or that went silent, is answered on the front with an error,
 * so the HTTP client never waits for nothing.
 */
import { ErrorCode } from '../../core/error-codes.ts';
import { type JsonObject, type RequestId, classify, errorResponse, isRequestId } from '../../core/jsonrpc.ts';
import { isLegacyRevision } from '../../core/protocol/versions.ts';
import type { ExchangeKey, GracefulCloseOptions, InboundFrame, OutboundFrame, Transport } from '../../core/transport.ts';

export interface ForwardHooks {
  /** The back answered the front's `initialize` with a result. */
  readonly onInitialized?: (request: JsonObject, result: JsonObject) => void | Promise<void>;
  /** Either side closed; both are closed now. */
  readonly onClosed?: () => void;
  /**
   * Runs before each front message goes to the back (the gateway signs the caller's identity assertion here).
   * Frames stay in order while it works; when it fails, the frame's requests are answered with its reason.
   */
  readonly prepare?: (frame: InboundFrame & { readonly type: 'message' }) => void | Promise<void>;
}

export interface Forwarding {
  /**
   * Closes both sides. With `drainMs`, gracefully: new requests from the front are refused at once, requests in
   * flight have up to `drainMs` for their answers to come back, and those still open then are answered with an
   * error naming the deadline.
   */
  close(options?: GracefulCloseOptions): Promise<void>;
}

/** Requests in flight through one forwarding; more are refused (bounded like every queue). */
const MAX_IN_FLIGHT = 4096;
/** How long a closing forwarding waits for its last sends to the front. */
const FLUSH_MS = 1_000;

export function forward(front: Transport, back: Transport, hooks: ForwardHooks = {}): Forwarding {
  const exchangeOf = new Map<RequestId, ExchangeKey | undefined>();
  let initialize: { readonly id: RequestId; readonly params: JsonObject } | undefined;
  /** Set while a graceful close waits for the answers in flight: the front's new requests are refused. */
  let draining: { readonly settled: () => void } | undefined;
  const subscriptions: Array<{ unsubscribe(): void }> = [];

  /** Sends to the front still under way (an event store append, backpressure): a close waits for them. */
  const sending = new Set<Promise<void>>();
  const toFront = (sent: void | Promise<void>): void => {
    if (sent === undefined) return;
    const tracked: Promise<void> = sent.catch(() => undefined).finally(() => sending.delete(tracked));
    sending.add(tracked);
  };

  let closing: Promise<void> | undefined;
  const close = (options: GracefulCloseOptions = {}): Promise<void> => (closing ??= shutDown(options.drainMs ?? 0));
  const shutDown = async (drainMs: number): Promise<void> => {
    if (drainMs > 0 && exchangeOf.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => resolve(), drainMs);
        draining = { settled: () => (clearTimeout(timer), resolve()) };
      });
    }
    draining = undefined;
    for (const id of [...exchangeOf.keys()]) {
      answerFront(id, drainMs > 0
        ? `The gateway shut down before request ${JSON.stringify(id)} was answered: the shutdown deadline of ${drainMs} ms passed`
        : `The gateway closed the connection before request ${JSON.stringify(id)} was answered`);
    }
    for (const subscription of subscriptions) subscription.unsubscribe();
    exchangeOf.clear();
    // The last answers must reach the front before it closes (bounded: a front that takes nothing is closed anyway).
    if (sending.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...sending]), new Promise((resolve) => (timer = setTimeout(resolve, FLUSH_MS)))]);
      clearTimeout(timer);
    }
    await Promise.allSettled([front.close(), back.close()]);
    hooks.onClosed?.();
  };

  const answerFront = (id: RequestId, message: string): void => {
    const exchange = exchangeOf.get(id);
    exchangeOf.delete(id);
    if (exchangeOf.size === 0) draining?.settled();
    toFront(front.send({ payload: errorResponse(id, { code: ErrorCode.InternalError, message }), ...(exchange === undefined ? {} : { exchange }) }));
  };

  /** The last front frame still being prepared: later ones wait behind it, so the back sees them in order. */
  let preparing: Promise<void> | undefined;
  const fromFront = (frame: InboundFrame): void => {
    if (frame.type !== 'message') return;
    const prepare = hooks.prepare;
    if (prepare === undefined) return forwardFront(frame);
    const run = (): void | Promise<void> => {
      let prepared: void | Promise<void>;
      try {
        prepared = prepare(frame);
      } catch (error) {
        return refuseFrame(frame, error);
      }
      if (prepared === undefined) return forwardFront(frame);
      return prepared.then(() => forwardFront(frame), (error: unknown) => refuseFrame(frame, error));
    };
    if (preparing === undefined) {
      const ran = run();
      if (ran === undefined) return;
      const tracked: Promise<void> = ran.finally(() => {
        if (preparing === tracked) preparing = undefined;
      });
      preparing = tracked;
      return;
    }
    const tracked: Promise<void> = preparing.then(run).finally(() => {
      if (preparing === tracked) preparing = undefined;
    });
    preparing = tracked;
  };

  const refuseFrame = (frame: InboundFrame & { readonly type: 'message' }, error: unknown): void => {
    const messages = Array.isArray(frame.payload) ? frame.payload : [frame.payload];
    for (const message of messages) {
      const classified = classify(message);
      if (classified.kind !== 'request') continue;
      exchangeOf.set(classified.message.id, frame.exchange);
      answerFront(classified.message.id, `The gateway could not vouch for the caller: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  const forwardFront = (frame: InboundFrame & { readonly type: 'message' }): void => {
    const messages = Array.isArray(frame.payload) ? frame.payload : [frame.payload];
    const requests = messages.flatMap((message) => {
      const classified = classify(message);
      return classified.kind === 'request' ? [classified.message] : [];
    });
    const refusal = requests.length === 0
      ? undefined
      : draining !== undefined
        ? 'The gateway is shutting down; retry the request'
        : exchangeOf.size + requests.length > MAX_IN_FLIGHT
          ? `Too many requests in flight: the gateway holds at most ${MAX_IN_FLIGHT} of one session at once; retry once earlier requests finished`
          : undefined;
    if (refusal !== undefined) {
      // Refused whole (a batch too): every request of the frame hears why, none is forwarded.
      for (const request of requests) {
        exchangeOf.set(request.id, frame.exchange);
        answerFront(request.id, refusal);
      }
      return;
    }
    for (const request of requests) {
      exchangeOf.set(request.id, frame.exchange);
      if (request.method === 'initialize') initialize = { id: request.id, params: request.params ?? {} };
    }
    // Tool parameters the client mirrored into headers go on with the body: only the server can check them.
    const mirror = frame.paramHeaders;
    sendBack({ payload: frame.payload as never, ...(mirror === undefined ? {} : { mirror }) }).catch((error: unknown) => {
      for (const message of messages) {
        const classified = classify(message);
        if (classified.kind === 'request') answerFront(classified.message.id, `The gateway could not reach the server: ${String(error)}`);
      }
    });
  };

  /** A send to the back as a promise: a medium that throws (a header it cannot carry) rejects it instead. */
  const sendBack = (frame: OutboundFrame): Promise<void> => {
    try {
      return Promise.resolve(back.send(frame));
    } catch (error) {
      return Promise.reject(error);
    }
  };

  const fromBack = (frame: InboundFrame): void => {
    if (frame.type === 'undeliverable') {
      const classified = classify(frame.payload);
      if (classified.kind === 'request') answerFront(classified.message.id, frame.error.message);
      return;
    }
    if (frame.type !== 'message') return;
    const classified = classify(frame.payload);
    let exchange: ExchangeKey | undefined;
    if (classified.kind === 'response' && classified.message.id !== undefined) {
      const id = classified.message.id;
      exchange = exchangeOf.get(id);
      exchangeOf.delete(id);
      if (exchangeOf.size === 0) draining?.settled();
      if (initialize !== undefined && id === initialize.id) {
        const request = initialize.params;
        initialize = undefined;
        // The back answered the handshake, so the front medium hears its outcome from here (a session would tell it).
        const revision = 'result' in classified.message ? classified.message.result['protocolVersion'] : undefined;
        if (!isLegacyRevision(revision)) {
          // A refused handshake: the front ends the session once told, so it is told after the refusal went out
          // (a send to the front may wait for the event store).
          const sent = front.send({ payload: frame.payload as never, ...(exchange === undefined ? {} : { exchange }) });
          toFront(Promise.resolve(sent).finally(() => front.negotiated?.(undefined)));
          return;
        }
        front.negotiated?.(revision);
        if ('result' in classified.message) {
          const result = classified.message.result;
          // The record must exist before the client can reach another replica with the session id.
          toFront(Promise.resolve(hooks.onInitialized?.(request, result)).then(
            () => front.send({ payload: frame.payload as never, ...(exchange === undefined ? {} : { exchange }) }),
          ));
          return;
        }
      }
    } else if (classified.kind === 'batch') {
      // A 2025-03-26 batch of answers goes out on the exchange of its requests.
      for (const item of classified.items) {
        const id = (item as { readonly id?: unknown }).id;
        if (!isRequestId(id)) continue;
        exchange ??= exchangeOf.get(id);
        exchangeOf.delete(id);
      }
    } else if (frame.exchange !== undefined) {
      // A notification on a request's reply subject: it travels with that request.
      exchange = exchangeOf.get(frame.exchange as RequestId);
    }
    toFront(front.send({ payload: frame.payload as never, ...(exchange === undefined ? {} : { exchange }) }));
  };

  // Either side ended: nothing more can cross, so a drain under way ends now.
  const closeNow = (): void => {
    draining?.settled();
    void close();
  };
  subscriptions.push(back.incoming$.subscribe({ next: fromBack, complete: closeNow, error: closeNow }));
  subscriptions.push(front.incoming$.subscribe({ next: fromFront, complete: closeNow, error: closeNow }));
  return { close };
}
