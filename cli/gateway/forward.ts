/**
 * Joins a front connection (an HTTP session or POST, whose client is the MCP client) to a back connection (a
 * NATS client transport to the servers), frames unchanged. Front frames carry exchange keys (the POST stream
 * each request came on); answers and related notifications from the back go out on the exchange of their
 * request. A request the back could not deliver, or that went silent, is answered on the front with an error,
 * so the HTTP client never waits for nothing.
 */
import { ErrorCode } from '../../core/error-codes.ts';
import { type JsonObject, type RequestId, classify, errorResponse } from '../../core/jsonrpc.ts';
import type { ExchangeKey, InboundFrame, Transport } from '../../core/transport.ts';

export interface ForwardHooks {
  /** The back answered the front's `initialize` with a result. */
  readonly onInitialized?: (request: JsonObject, result: JsonObject) => void | Promise<void>;
  /** Either side closed; both are closed now. */
  readonly onClosed?: () => void;
}

export interface Forwarding {
  close(): Promise<void>;
}

/** Requests in flight through one forwarding; more are refused (bounded like every queue). */
const MAX_IN_FLIGHT = 4096;

export function forward(front: Transport, back: Transport, hooks: ForwardHooks = {}): Forwarding {
  const exchangeOf = new Map<RequestId, ExchangeKey | undefined>();
  let initialize: { readonly id: RequestId; readonly params: JsonObject } | undefined;
  let closed = false;
  const subscriptions: Array<{ unsubscribe(): void }> = [];

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    for (const subscription of subscriptions) subscription.unsubscribe();
    exchangeOf.clear();
    await Promise.allSettled([front.close(), back.close()]);
    hooks.onClosed?.();
  };

  const answerFront = (id: RequestId, message: string): void => {
    const exchange = exchangeOf.get(id);
    exchangeOf.delete(id);
    void Promise.resolve(front.send({ payload: errorResponse(id, { code: ErrorCode.InternalError, message }), ...(exchange === undefined ? {} : { exchange }) })).catch(() => undefined);
  };

  const fromFront = (frame: InboundFrame): void => {
    if (frame.type !== 'message') return;
    const messages = Array.isArray(frame.payload) ? frame.payload : [frame.payload];
    const requests = messages.flatMap((message) => {
      const classified = classify(message);
      return classified.kind === 'request' ? [classified.message] : [];
    });
    if (requests.length > 0 && exchangeOf.size + requests.length > MAX_IN_FLIGHT) {
      // Refused whole (a batch too): every request of the frame hears why, none is forwarded.
      for (const request of requests) {
        exchangeOf.set(request.id, frame.exchange);
        answerFront(request.id, `Too many requests in flight: the gateway holds at most ${MAX_IN_FLIGHT} of one session at once; retry once earlier requests finished`);
      }
      return;
    }
    for (const request of requests) {
      exchangeOf.set(request.id, frame.exchange);
      if (request.method === 'initialize') initialize = { id: request.id, params: request.params ?? {} };
    }
    Promise.resolve(back.send({ payload: frame.payload as never })).catch((error: unknown) => {
      for (const message of messages) {
        const classified = classify(message);
        if (classified.kind === 'request') answerFront(classified.message.id, `The gateway could not reach the server: ${String(error)}`);
      }
    });
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
      if (initialize !== undefined && id === initialize.id) {
        const request = initialize.params;
        initialize = undefined;
        if ('result' in classified.message) {
          const result = classified.message.result;
          // The record must exist before the client can reach another replica with the session id.
          void Promise.resolve(hooks.onInitialized?.(request, result)).then(
            () => front.send({ payload: frame.payload as never, ...(exchange === undefined ? {} : { exchange }) }),
          ).catch(() => undefined);
          return;
        }
      }
    } else if (classified.kind === 'batch') {
      // A 2025-03-26 batch of answers goes out on the exchange of its requests.
      for (const item of classified.items) {
        const id = (item as { readonly id?: unknown }).id;
        if (typeof id !== 'string' && typeof id !== 'number') continue;
        exchange ??= exchangeOf.get(id);
        exchangeOf.delete(id);
      }
    } else if (frame.exchange !== undefined) {
      // A notification on a request's reply subject: it travels with that request.
      exchange = exchangeOf.get(frame.exchange as RequestId);
    }
    Promise.resolve(front.send({ payload: frame.payload as never, ...(exchange === undefined ? {} : { exchange }) })).catch(() => undefined);
  };

  subscriptions.push(back.incoming$.subscribe({ next: fromBack, complete: () => void close(), error: () => void close() }));
  subscriptions.push(front.incoming$.subscribe({ next: fromFront, complete: () => void close(), error: () => void close() }));
  return { close };
}
