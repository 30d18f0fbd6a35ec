/**
 * Shared setup of the replica specs: several `createStreamableHttpServer` instances in one process (each with
 * its own rxmcp server, as separate processes would have), which keep the outcome of each session's handshake
 * in one shared book and restore sessions from it, the way a gateway's replicas would with a record store.
 */
import { filter, take, tap } from 'rxjs';
import type { SessionAcceptorPort, Transport } from '../../../core/transport.ts';
import type { McpServer } from '../../../server/create-server.ts';
import { type RestoredSession, type StreamableHttpServer, type StreamableHttpServerOptions, createStreamableHttpServer } from '../../../transports/http/index.ts';
import { type Gates, demoServer } from './fixtures.ts';

export interface SessionRecord extends RestoredSession {
  readonly principal: string | undefined;
}

/** What the replicas share: a record per session, and a log of what they asked for and were given. */
export class SessionBook {
  readonly records = new Map<string, SessionRecord>();
  /** Every restore call: the id and the principal it was made for. */
  readonly lookups: Array<{ readonly sessionId: string; readonly principal: string | undefined }> = [];

  /** The `restoreSession` hook: only the principal that opened a session gets it back. */
  readonly restore = (sessionId: string, origin: { readonly principal?: string } | undefined): SessionRecord | undefined => {
    this.lookups.push({ sessionId, principal: origin?.principal });
    const record = this.records.get(sessionId);
    return record !== undefined && record.principal === origin?.principal ? record : undefined;
  };
}

export interface Accepted {
  readonly sessionId: string | undefined;
  readonly options: Parameters<SessionAcceptorPort['accept']>[1];
}

/**
 * An acceptor in front of `server` that books each new session once it operates (with the principal its
 * requests came from) and logs every accept call.
 */
export function bookingAcceptor(server: McpServer, book: SessionBook): { acceptor: SessionAcceptorPort; accepted: Accepted[] } {
  const accepted: Accepted[] = [];
  const acceptor: SessionAcceptorPort = {
    eras: server.eras,
    accept(transport, options) {
      accepted.push({ sessionId: transport.sessionId, options });
      let principal: string | undefined;
      const seen: Transport = {
        kind: transport.kind,
        sessionId: transport.sessionId,
        incoming$: transport.incoming$.pipe(
          tap((frame) => {
            if (frame.type === 'message' && frame.origin?.principal !== undefined) principal ??= frame.origin.principal;
          }),
        ),
        send: (frame) => transport.send(frame),
        close: (reason) => transport.close(reason),
        negotiated: (revision) => transport.negotiated?.(revision),
      };
      const session = server.accept(seen, options);
      const id = transport.sessionId;
      if (id !== undefined && options?.restoredSessionId === undefined) {
        session.state$.pipe(filter((state) => state === 'operating'), take(1)).subscribe(() => {
          const { revision, peerCapabilities, peerInfo } = session;
          if (revision === undefined || revision === '2026-07-28' || revision === '2024-11-05' || peerCapabilities === undefined) return;
          book.records.set(id, { revision, peerCapabilities: { ...peerCapabilities }, ...(peerInfo === undefined ? {} : { peerInfo }), principal });
        });
      }
      return session;
    },
  };
  return { acceptor, accepted };
}

export interface Replica {
  readonly url: string;
  readonly http: StreamableHttpServer;
  readonly server: McpServer;
  readonly gates: Gates;
  readonly accepted: Accepted[];
}

export interface Replicas extends AsyncDisposable {
  readonly book: SessionBook;
  readonly replicas: readonly Replica[];
}

/**
 * `count` replicas of the demo server on 127.0.0.1 port 0, restoring from one book. `options` apply to all (or
 * are given per replica, by index); `serverOf` may add tools to each replica's server.
 */
export async function startReplicas(
  count: number,
  options: Partial<StreamableHttpServerOptions> | ((index: number) => Partial<StreamableHttpServerOptions>) = {},
  serverOf: (server: McpServer) => void = () => undefined,
): Promise<Replicas> {
  const book = new SessionBook();
  const replicas: Replica[] = [];
  for (let index = 0; index < count; index++) {
    const demo = demoServer();
    serverOf(demo.server);
    const { acceptor, accepted } = bookingAcceptor(demo.server, book);
    const own = typeof options === 'function' ? options(index) : options;
    const http = createStreamableHttpServer({ restoreSession: book.restore, ...own, server: acceptor });
    const listening = await http.listen();
    replicas.push({ url: listening.url, http, server: demo.server, gates: demo.gates, accepted });
  }
  return {
    book,
    replicas,
    async [Symbol.asyncDispose]() {
      for (const replica of replicas) {
        await replica.http.close();
        await replica.server.close();
      }
    },
  };
}
