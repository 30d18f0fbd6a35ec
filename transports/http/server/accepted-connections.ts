/**
 * Every connection the server accepted through this endpoint (Streamable sessions, HTTP+SSE sessions, modern
 * and stateless POSTs), with the handle the server gave for it, so closing the endpoint gracefully can ask each
 * session to drain (answer what runs, flush, then close its transport) instead of cutting its transport.
 * A connection leaves the set when its transport reports itself closed.
 */
import type { GracefulCloseOptions, SessionAcceptorPort, Transport } from '../../../core/transport.ts';

type Handle = ReturnType<SessionAcceptorPort['accept']>;

/** The endpoint's own transports say when they closed (not a part of the port: sessions have no use for it). */
interface ClosingTransport extends Transport {
  whenClosed(listener: () => void): void;
}

/** What a transport that leaves a set by itself is given: the set (anything that can forget it). */
export interface ClosedSet {
  delete(transport: Transport): unknown;
}

/**
 * A transport that deletes itself from a set once it closed: it is handed the set, so holding a connection
 * costs no closure (the HTTP session transports: one per idle session).
 */
interface LeavingTransport extends Transport {
  leaveOnClose(set: ClosedSet): void;
}

function saysWhenClosed(transport: Transport): transport is ClosingTransport {
  return typeof (transport as Partial<ClosingTransport>).whenClosed === 'function';
}

function leavesOnClose(transport: Transport): transport is LeavingTransport {
  return typeof (transport as Partial<LeavingTransport>).leaveOnClose === 'function';
}

export class AcceptedConnections {
  private readonly live = new Map<Transport, Handle>();

  get size(): number {
    return this.live.size;
  }

  /** `server`, with every connection it accepts held here until its transport closes. */
  wrap(server: SessionAcceptorPort): SessionAcceptorPort {
    const wrapped: SessionAcceptorPort = {
      refusal: () => server.refusal?.(),
      accept: (transport, options) => {
        const handle = options === undefined ? server.accept(transport) : server.accept(transport, options);
        if (handle.state !== 'closed') this.hold(transport, handle);
        return handle;
      },
    };
    return {
      ...wrapped,
      ...(server.eras === undefined ? {} : { eras: server.eras }),
      ...(server.changes === undefined ? {} : { changes: server.changes }),
      ...(server.describe === undefined ? {} : { describe: server.describe.bind(server) }),
      ...(server.missingScopes === undefined ? {} : { missingScopes: server.missingScopes.bind(server) }),
    };
  }

  /** Closes every connection held now with `options` (each drains on its own), and waits for all of them. */
  async closeAll(options: GracefulCloseOptions): Promise<void> {
    await Promise.all(Array.from(this.live.values(), (handle) => handle.close(options).catch(() => undefined)));
  }

  private hold(transport: Transport, handle: Handle): void {
    if (leavesOnClose(transport)) {
      this.live.set(transport, handle);
      transport.leaveOnClose(this.live);
    } else if (saysWhenClosed(transport)) {
      this.live.set(transport, handle);
      transport.whenClosed(() => void this.live.delete(transport));
    }
  }
}
