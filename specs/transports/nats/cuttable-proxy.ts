/**
 * A TCP proxy in front of nats-server, for specs that cut one process off from NATS (not killing it), or hold back
 * what it sends while NATS still delivers to it.
 */
import { type Server, type Socket, createServer as tcpServer, connect as tcpConnect } from 'node:net';

export interface CuttableProxy {
  /** The URL to connect through. */
  readonly url: string;
  /** Drops every connection through the proxy and refuses new ones until `restore`. */
  cut(): void;
  restore(): void;
  /** Holds what the clients through the proxy send (kept, in order) until `release`; what NATS sends them still flows. */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

/** A TCP proxy to nats-server that can cut every connection through it and refuse new ones for a while. */
export async function cuttableProxy(port: number): Promise<CuttableProxy> {
  let open = true;
  const sockets = new Set<Socket>();
  /** Each client's socket and its socket to nats-server. */
  const upstreams = new Map<Socket, Socket>();
  const server: Server = tcpServer((inbound) => {
    if (!open) return void inbound.destroy();
    const outbound = tcpConnect({ host: '127.0.0.1', port });
    const end = (): void => {
      inbound.destroy();
      outbound.destroy();
      sockets.delete(inbound);
      sockets.delete(outbound);
      upstreams.delete(inbound);
    };
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', end);
      socket.on('close', end);
    }
    upstreams.set(inbound, outbound);
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const proxyPort = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `nats://127.0.0.1:${proxyPort}`,
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      open = true;
    },
    // Unpiped, a client's socket stops flowing: what it sends waits in its buffers until it is piped again.
    hold() {
      for (const [inbound, outbound] of upstreams) inbound.unpipe(outbound);
    },
    release() {
      for (const [inbound, outbound] of upstreams) inbound.pipe(outbound);
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
