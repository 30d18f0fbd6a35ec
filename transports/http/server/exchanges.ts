/**
 * The exchanges of one HTTP session: where the frames the session sends may go.
 * - A {@link LogicalStream} is one SSE stream in the spec's sense: the stream a POST opened for its requests, or
 *   the session's standalone stream (opened by GET). It outlives its HTTP connections: a client that lost one
 *   reconnects (GET + Last-Event-ID) and the stream continues on the new connection.
 * - A {@link JsonExchange} is a POST answered with a plain JSON body.
 */
import type { TimerHandle } from '../../../core/clock.ts';
import type { JsonRpcMessage, RequestId, WirePayload } from '../../../core/jsonrpc.ts';
import type { HeaderMap, HttpResponder } from './http-exchange.ts';
import type { SseConnection } from './sse-connection.ts';
import type { StoredEvent } from './event-store.ts';

/** The id of every session's standalone (GET) stream; POST streams are `p1`, `p2`, ... */
export const STANDALONE_STREAM = 'g';

export type PayloadKind = 'request' | 'notification' | 'response';

export function kindOf(payload: WirePayload): PayloadKind {
  if (Array.isArray(payload)) return 'response';
  const message = payload as JsonRpcMessage;
  if (!('method' in message)) return 'response';
  return 'id' in message ? 'request' : 'notification';
}

export const refusals = {
  json: 'The client asked for a plain JSON answer (response mode "json"): a request made while answering it cannot reach the client',
  stateless: 'A stateless HTTP endpoint cannot carry requests to the client',
  noStream: 'No SSE stream to the client is open (a request unrelated to a client request needs the standalone GET stream)',
  over: 'The client request it relates to is over (answered or cancelled): no stream carries it any more',
} as const;

/** What a POST's answer still covers, to notice when cancellations leave nothing to answer. */
class Outstanding {
  constructor(readonly requestIds: Set<RequestId>, public otherAnswers: number) {}

  /** Forgets a cancelled request; true when nothing is left to answer. */
  cancel(id: RequestId): boolean {
    return this.requestIds.delete(id) && this.requestIds.size === 0 && this.otherAnswers === 0;
  }
}

export class LogicalStream extends Outstanding {
  /** The HTTP connection carrying the stream now, if any. */
  connection: SseConnection | undefined;
  /** The polling pattern: closes the connection after a while (the stream goes on). */
  closeTimer: TimerHandle | undefined;
  /** The stream's answer went out: it is over. */
  completed = false;

  constructor(readonly id: string, requestIds: readonly RequestId[] = [], otherAnswers = 0) {
    super(new Set(requestIds), otherAnswers);
  }

  get isStandalone(): boolean {
    return this.id === STANDALONE_STREAM;
  }

  /** Ends the current connection (the stream itself goes on unless completed). */
  disconnect(): void {
    this.release()?.end();
  }

  /** Lets go of the current connection without ending it; returns it. */
  release(): SseConnection | undefined {
    this.closeTimer?.cancel();
    this.closeTimer = undefined;
    const connection = this.connection;
    this.connection = undefined;
    return connection;
  }
}

export class JsonExchange extends Outstanding {
  constructor(
    readonly key: string,
    readonly responder: HttpResponder,
    readonly headers: HeaderMap,
    requestIds: readonly RequestId[],
    otherAnswers: number,
  ) {
    super(new Set(requestIds), otherAnswers);
  }
}

export type Exchange = LogicalStream | JsonExchange;

/**
 * A replay in flight (with an asynchronous store): events stored meanwhile are kept here too, so the resumed
 * connection gets them even if they were stored after the replay was read.
 */
export class PendingResume {
  private readonly events: Array<{ readonly streamId: string; readonly event: StoredEvent }> = [];

  record(streamId: string, event: StoredEvent): void {
    this.events.push({ streamId, event });
  }

  eventsOf(streamId: string): StoredEvent[] {
    return this.events.filter((entry) => entry.streamId === streamId).map((entry) => entry.event);
  }
}
