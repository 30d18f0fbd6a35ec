/**
 * Streams of a session that several processes serve (`restoreSession`) with a store they share and can `follow`
 * (JetStreamEventStore): what lets a load balancer send each request of a session to any replica.
 * - The standalone (GET) stream is ONE stream in the store for all replicas: whichever replica a server message
 *   outside any request reaches appends it; the GET connection, wherever it is open, follows the store.
 * - Each request stream's requests are recorded at its start (`startStream`), so that a replica following it
 *   for a resumed client can answer them with an error should the replica producing it die (stream-resume.ts).
 */
import { type Observable, Subscription } from 'rxjs';
import type { EventStore, StoredEvent } from './event-store.ts';
import type { LogicalStream } from './exchanges.ts';
import type { TransportSettings } from './settings.ts';
import type { SseConnection } from './sse-connection.ts';

export type FollowingStore = EventStore & Required<Pick<EventStore, 'follow' | 'endStream'>>;

/** The store the standalone streams of shared sessions live in; undefined when streams are not shared so. */
export function sharedStandaloneStore(settings: TransportSettings): FollowingStore | undefined {
  const { store, sharedSessions } = settings;
  if (!sharedSessions || store?.follow === undefined || store.endStream === undefined) return undefined;
  return store as FollowingStore;
}

/**
 * Records which requests a shared session's request stream answers. Not waited for: the store sends it before
 * the stream's first event, and a failure only costs a follower those error answers.
 */
export function recordStreamStart(settings: TransportSettings, sessionId: string | undefined, stream: LogicalStream): void {
  const { store, sharedSessions } = settings;
  if (!sharedSessions || sessionId === undefined || store?.startStream === undefined || stream.requestIds.size === 0) return;
  try {
    const started = store.startStream(sessionId, stream.id, [...stream.requestIds]);
    if (started instanceof Promise) started.catch(() => undefined);
  } catch {
    // as above
  }
}

/** What `followSharedStandalone` needs of the session's transport. */
export interface SharedStandaloneHost {
  readonly sessionId: string | undefined;
  readonly sharedStandalone: FollowingStore | undefined;
  /** Ends `connection` when the session closes here. */
  trackFollower(connection: SseConnection): void;
}

/**
 * Carries the shared standalone stream on `connection` from the event `position` on, as any replica appends to
 * it, until the client leaves, the session closes here, or the store stops (the client then comes back with its
 * last event id, on any replica). The producer is not watched: every replica serving the session appends here,
 * and one of them going away ends nothing.
 */
export function followSharedStandalone(host: SharedStandaloneHost, connection: SseConnection, position: string, seen: ReadonlySet<string>): void {
  const sessionId = host.sessionId;
  const followed = sessionId === undefined ? undefined : host.sharedStandalone?.follow(sessionId, position, { watchProducer: false });
  if (followed === undefined) return connection.end();
  host.trackFollower(connection);
  carryFollow(connection, followed, seen, () => connection.end());
}

/**
 * Writes what `followed` emits on `connection` (but the events in `seen`, already written) until it completes,
 * which ends the connection, or fails, which `onError` handles; the connection closing stops the follow.
 */
export function carryFollow(connection: SseConnection, followed: Observable<StoredEvent>, seen: ReadonlySet<string>, onError: (error: unknown) => void): void {
  // Made first: a client that left (or a session that closed) before the follow started stops it at once.
  const following = new Subscription();
  connection.onClose(() => following.unsubscribe());
  following.add(
    followed.subscribe({
      next: (event) => {
        if (!seen.has(event.id)) void connection.event(event.message, event.id);
      },
      complete: () => connection.end(),
      error: onError,
    }),
  );
}

