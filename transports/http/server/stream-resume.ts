/**
 * Resuming a stream (GET with `Last-Event-ID`): the client lost a connection and names the last event it got.
 * The store says which stream that event belongs to and what followed; those events are written first, then
 * the stream (if it still runs) continues on this connection: a request stream until its answer, the standalone
 * stream indefinitely. Only that stream's events are replayed, never another's.
 *
 * A request stream that another process opened (sessions shared by replicas, `restoreSession`) cannot continue
 * from here; with a store that can `follow` streams, its events are carried over from the store as any process
 * appends them, until the store says it ended. Without one, the replay is all this connection gets. The
 * standalone stream is this process's own, unless the session's processes share it through such a store
 * (`HttpSessionTransport.sharedStandalone`): it is then followed from the store like a request stream.
 */
import { encodeSseEvent, encodeSseRetry } from '../shared/sse.ts';
import { ErrorCode } from '../../../core/error-codes.ts';
import { type EventStore, type ReplayResult, type StoredEvent, StreamAbandonedError } from './event-store.ts';
import { PendingResume, STANDALONE_STREAM } from './exchanges.ts';
import type { HeaderMap, HttpResponder } from './http-exchange.ts';
import type { HttpSessionTransport } from './session-transport.ts';
import { type FollowingStore, carryFollow } from './shared-streams.ts';
import { andThen } from './settings.ts';
import type { SseConnection } from './sse-connection.ts';

/**
 * `unknown`: no such event (400); `closed`: the session ended (404); `over`: the stream is over here and nothing
 * of it is left to replay (204: a cancelled request's stream, whose connection was let go, see held-streams.ts);
 * undefined: answered with the stream.
 */
export type ResumeOutcome = 'unknown' | 'closed' | 'over' | undefined;

export function resumeStream(transport: HttpSessionTransport, res: HttpResponder, headers: HeaderMap, lastEventId: string): ResumeOutcome | Promise<ResumeOutcome> {
  const { store } = transport.settings;
  const sessionId = transport.sessionId;
  if (store === undefined || sessionId === undefined) return 'unknown';
  // With an asynchronous store, events stored while the replay is read are collected here as well.
  const pending = new PendingResume();
  transport.trackResume(pending, true);
  let replay: ReplayResult | undefined | Promise<ReplayResult | undefined>;
  try {
    replay = store.replayAfter(sessionId, lastEventId);
  } catch (error) {
    transport.trackResume(pending, false);
    throw error;
  }
  const finish = (result: ReplayResult | undefined): ResumeOutcome | Promise<ResumeOutcome> => {
    transport.trackResume(pending, false);
    if (transport.isClosed) return 'closed';
    if (result === undefined) return 'unknown';
    if (result.streamId === STANDALONE_STREAM && transport.sharedStandalone !== undefined) {
      resumeShared(transport, transport.connect(res, headers), result, lastEventId);
      return undefined;
    }
    const stream = transport.liveStream(result.streamId);
    if (stream === undefined && !transport.openedHere(result.streamId) && canFollow(store)) {
      follow(transport, store, sessionId, transport.connect(res, headers), result, lastEventId);
      return undefined;
    }
    // Nothing left of a stream that is over: a stream that opened and closed empty would only send the client
    // back for more (a plain GET once it has no id, which the open standalone stream answers with 409).
    if (stream === undefined && transport.openedHere(result.streamId) && result.events.length === 0 && pending.eventsOf(result.streamId).length === 0) return 'over';
    // A stream that goes on is primed again, so a client that loses this connection before any event still has
    // an id to come back with; a finished one only replays.
    const priming = stream !== undefined && transport.polls ? store.append(sessionId, stream.id, null) : undefined;
    return andThen(priming, (primingId) => {
      const connection = transport.connect(res, headers);
      const retry = transport.settings.sse.retryMs;
      if (primingId !== undefined) void connection.write(encodeSseEvent({ id: primingId, data: '', ...(retry > 0 ? { retry } : {}) }));
      else if (transport.polls && retry > 0) void connection.write(encodeSseRetry(retry));
      const seen = new Set<string>();
      const replayOne = (event: StoredEvent): void => {
        if (seen.has(event.id)) return;
        seen.add(event.id);
        // Replay ignores flow control: it is bounded by what the store keeps.
        void connection.event(event.message, event.id);
      };
      result.events.forEach(replayOne);
      pending.eventsOf(result.streamId).forEach(replayOne);
      // A finished request stream: the replay carried everything, its answer included.
      if (stream === undefined || stream.completed) connection.end();
      else transport.attach(stream, connection);
      return undefined;
    });
  };
  if (replay instanceof Promise) {
    return replay.then(finish, (error: unknown) => {
      transport.trackResume(pending, false);
      throw error;
    });
  }
  return finish(replay);
}

/** The shared standalone stream: its replay, then what any process appends to it. */
function resumeShared(transport: HttpSessionTransport, connection: SseConnection, result: ReplayResult, lastEventId: string): void {
  const retry = transport.settings.sse.retryMs;
  if (transport.polls && retry > 0) void connection.write(encodeSseRetry(retry));
  const seen = new Set<string>();
  for (const event of result.events) {
    seen.add(event.id);
    void connection.event(event.message, event.id);
  }
  transport.followShared(connection, result.events.at(-1)?.id ?? lastEventId, seen);
}

/** `follow` is only of use with `endStream`: without it a follower could never tell that a stream ended. */
function canFollow(store: EventStore): store is FollowingStore {
  return store.follow !== undefined && store.endStream !== undefined;
}

/**
 * Carries a stream running in another process: the replay, then what the store emits after its last event,
 * until the store completes (the stream's end) or fails, the client leaves, or the session closes here. Like
 * the replay, this ignores flow control: it is bounded by what one stream holds, and a client that stops
 * reading is cut off by the connection's drain timeout.
 */
function follow(transport: HttpSessionTransport, store: FollowingStore, sessionId: string, connection: SseConnection, result: ReplayResult, lastEventId: string): void {
  const retry = transport.settings.sse.retryMs;
  if (transport.polls && retry > 0) void connection.write(encodeSseRetry(retry));
  const seen = new Set<string>();
  for (const event of result.events) {
    seen.add(event.id);
    void connection.event(event.message, event.id);
  }
  const from = result.events.at(-1)?.id ?? lastEventId;
  const followed = store.follow(sessionId, from);
  if (followed === undefined) return connection.end();
  transport.trackFollower(connection);
  carryFollow(connection, followed, seen, (error) => abandon(connection, error));
}

/**
 * A follow that failed: when its stream was abandoned (its producer is gone), the requests it was to answer are
 * answered here with the reason, so the client does not wait for answers that cannot come; then it ends.
 */
function abandon(connection: SseConnection, error: unknown): void {
  if (error instanceof StreamAbandonedError) {
    for (const id of error.unanswered) {
      void connection.event(JSON.stringify({ jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message: error.message } }));
    }
  }
  connection.end();
}
