/**
 * The gateway's SSE event store as its HTTP side uses it: the JetStream store, except while the gateway stops
 * with its NATS connection down.
 *
 * An SSE event is stored before it is written (its id comes from the store), and a session's events go in
 * order. With JetStream out of reach the last answers of a stop (the errors for the requests that outlived the
 * drain) would wait for the store, behind the events before them, until their streams are closed, and their
 * clients would get no answer at all. So once the gateway stops, while the connection is down, every event the
 * store has not taken goes out unstored, under an id no replica resumes from (`<stream>.0`: JetStream sequences
 * start at 1). Its client has the answer; there is nothing to resume.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { EventStore } from '../../transports/http/index.ts';
import { connectionState } from '../../transports/nats/connection-state.ts';
import type { JetStreamEventStore } from '../../transports/nats/index.ts';

export interface StoppingEventStore {
  readonly store: EventStore;
  /** The gateway stops: from now on, while the connection is down, events go out unstored. */
  stopping(): void;
  /** Stops following the connection. */
  close(): void;
}

export function stoppingEventStore(events: JetStreamEventStore, connection: NatsConnection): StoppingEventStore {
  const state = connectionState(connection);
  let stopping = false;
  let giveUp!: () => void;
  /** Settles once the gateway stops with its connection down: every append still under way gives up then. */
  const givenUp = new Promise<void>((resolve) => (giveUp = resolve));
  const check = (): void => {
    if (stopping && state.down) giveUp();
  };
  const stopWatching = state.on(check);
  const store: EventStore = {
    append(sessionId, streamId, message) {
      const unstored = `${streamId}.0`;
      if (stopping && state.down) return unstored;
      return Promise.race([events.append(sessionId, streamId, message), givenUp.then(() => unstored)]);
    },
    replayAfter: (sessionId, lastEventId) => events.replayAfter(sessionId, lastEventId),
    dropSession: (sessionId) => events.dropSession(sessionId),
    follow: (sessionId, lastEventId, options) => events.follow(sessionId, lastEventId, options),
    startStream: (sessionId, streamId, requestIds) => events.startStream(sessionId, streamId, requestIds),
    endStream: (sessionId, streamId) => events.endStream(sessionId, streamId),
  };
  return {
    store,
    stopping() {
      stopping = true;
      check();
    },
    close() {
      stopWatching();
    },
  };
}
