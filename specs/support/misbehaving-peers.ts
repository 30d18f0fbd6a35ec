/**
 * Peers that misbehave, for the specs of what stops on time: a NATS "server" that accepts connections and never
 * speaks, and HTTP clients that send a request and never read a byte of the answer. Both on 127.0.0.1.
 */
import { type Server, type Socket, createServer, connect as tcpConnect } from 'node:net';

/** A TCP listener on 127.0.0.1 that accepts connections and never writes a byte (a NATS server that hangs). */
export async function silentListener(): Promise<{ readonly url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `nats://127.0.0.1:${port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * An HTTP client that sends one POST and never reads a byte of the answer: its socket is paused from the
 * start, so once the kernel's buffers are full the server cannot write to it any more. Destroyed by `close`.
 */
export async function neverReadingPost(url: string, headers: Readonly<Record<string, string>>, body: unknown): Promise<{ close(): void }> {
  const target = new URL(url);
  const payload = Buffer.from(JSON.stringify(body));
  const socket = tcpConnect({ host: target.hostname, port: Number(target.port) });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.pause();
  const lines = [
    `POST ${target.pathname} HTTP/1.1`,
    `Host: ${target.host}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Content-Length: ${payload.byteLength}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  socket.write(payload);
  return { close: () => socket.destroy() };
}
