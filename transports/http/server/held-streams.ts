/**
 * The connections of cancelled request streams, held open.
 *
 * A request cancelled with `notifications/cancelled` gets no response (the spec's rule for cancellations), and a
 * server "SHOULD NOT close the SSE stream before sending the JSON-RPC response". Every official client takes a
 * stream that ends without its response, after an event id, as a lost connection: it waits `retry:` and resumes
 * with `GET` and `Last-Event-ID`, and when that too ends it falls back to a plain `GET`, which the session's open
 * standalone stream answers with 409, until it gives up with an error. So the connection stays open, carrying
 * keep-alive comments only, until the client closes it (an rxmcp client does at once) or the session ends: the
 * official servers do the same. Unlike them, a session holds at most {@link MAX_HELD} such connections: past that
 * the oldest is ended, and its client's resumption is answered 204 (stream-resume.ts), which clients take as the
 * stream's quiet end.
 */
import type { SseConnection } from './sse-connection.ts';

/** Cancelled streams a session keeps open at once (a client cancelling more often sees the oldest end). */
export const MAX_HELD = 8;

export class HeldStreams {
  private readonly connections = new Set<SseConnection>();

  /** Keeps `connection` open (it writes nothing more) until its client closes it or {@link endAll}. */
  hold(connection: SseConnection): void {
    if (!connection.open) return;
    const connections = this.connections;
    if (connections.size >= MAX_HELD) {
      const oldest = connections.values().next().value as SseConnection;
      connections.delete(oldest);
      oldest.end();
    }
    connections.add(connection);
    connection.onClose(() => void connections.delete(connection));
  }

  get size(): number {
    return this.connections.size;
  }

  endAll(): void {
    const held = [...this.connections];
    this.connections.clear();
    for (const connection of held) connection.end();
  }
}
