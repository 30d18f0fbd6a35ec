import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { readBody } from '../../../transports/http/client/http-exchange.ts';
import { createNodeEngine } from '../../../transports/http/client/node-engine.ts';

/**
 * A server that answers the first request on each connection with keep-alive, then resets the connection
 * when a second request arrives on it: what a client meets when the server closed an idle socket just as
 * the request went out.
 */
async function resettingServer(): Promise<{ url: URL; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    let served = 0;
    socket.on('data', (chunk) => {
      if (!chunk.toString('latin1').includes('\r\n\r\n')) return;
      served++;
      if (served > 1) {
        socket.resetAndDestroy();
        return;
      }
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\n{}');
    });
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: new URL(`http://127.0.0.1:${address.port}/mcp`),
    connections: () => connections,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

test('http client - a request on a kept-alive socket the server reset is sent again once, on a fresh socket', async () => {
  const server = await resettingServer();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const engine = createNodeEngine(server.url, { agent, maxSockets: 1 });
  try {
    const post = async (): Promise<string> => {
      const response = await engine.exchange({ method: 'POST', url: server.url, headers: { 'content-type': 'application/json' }, lane: 'main', body: Buffer.from('{}') });
      return Buffer.from(await readBody(response, 1024)).toString();
    };
    assert.equal(await post(), '{}');
    assert.equal(await post(), '{}', 'the reset request succeeded on its second try');
    assert.equal(server.connections(), 2, 'the retry used a new connection');
  } finally {
    agent.destroy();
    await server.close();
  }
});
