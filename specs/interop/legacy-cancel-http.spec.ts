/**
 * Interop: the official SDK clients (1.x, and 2.x in the legacy era) cancel a call over legacy Streamable HTTP
 * (2025-11-25: streams primed with an event id and `retry:`), directly against our HTTP server (a session host,
 * as `rxmcp serve` has) and through `rxmcp gateway` (createGateway) to the same server on a real nats-server.
 *
 * The call reports progress; the client aborts it at the second report, which sends `notifications/cancelled`.
 * What must follow is nothing: every request the client makes goes through a recording proxy, and in a window of
 * several `retry:` periods after the cancellation there is no GET (no resumption with `Last-Event-ID`, no plain
 * GET answered 409), no client error event, the handler's signal aborted, and the next call works. Once the client
 * closes, nothing it opened stays open (the cancelled stream's connection is held only while the client is there).
 *
 * Both SDK clients resume a stream that ends without its response; the official servers keep such a stream open
 * (held-streams.ts explains ours), which is why the cancelled stream must not end while the client holds it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as Sdk2Client, StreamableHTTPClientTransport as Sdk2Transport } from '@modelcontextprotocol/client';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { type Gateway, createGateway } from '../../cli/gateway/gateway.ts';
import { type McpServer, createServer } from '../../server/create-server.ts';
import { type SessionHost, createSessionHost } from '../../server/session-host.ts';
import { type ListeningServer, type StreamableHttpServer, createStreamableHttpServer } from '../../transports/http/index.ts';
import { type NatsServing, serveNats } from '../../transports/nats/index.ts';
import { eventually } from '../support/harness.ts';
import { type NatsServerProcess, startNatsServer } from '../support/nats-server.ts';
import { type RecordingProxy, startRecordingProxy } from '../support/recording-proxy.ts';

/** The `retry:` our endpoints send: a client that resumes does so this long after a stream ended. */
const RETRY_MS = 200;
/** How long nothing may happen after the cancellation: several retry periods, so a resumption would show. */
const QUIET_MS = 6 * RETRY_MS;

interface Call {
  readonly aborted: Promise<void>;
}

/**
 * `tick` reports progress twice, 40 ms apart, then waits (up to 10 s) for its signal to abort; `echo` answers at
 * once. It reports nothing more after the second: a report the server sends before the cancellation reaches it
 * would reach the client on the stream it still reads, and both SDKs report a progress token they no longer know
 * as an error (any server, the official ones too: nothing a server does can call back what is on the wire).
 */
function tickingServer(calls: Map<string, Call>): McpServer {
  const server = createServer({ name: 'legacy-cancel', version: '1.0.0' });
  server.tool({ name: 'tick', inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] } }, async (args, ctx) => {
    let abort!: () => void;
    calls.set(String(args['key']), { aborted: new Promise<void>((resolve) => (abort = resolve)) });
    const aborted = new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => (abort(), resolve()), { once: true }));
    for (let step = 1; step <= 2; step++) {
      ctx.progress({ progress: step, total: 3 });
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    await Promise.race([aborted, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    return ctx.signal.aborted ? 'aborted' : 'ticked';
  });
  server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => `echo: ${String(args['text'])}`);
  return server;
}

/** What a spec needs of either SDK client: connect, call with progress and a signal, close. */
interface SdkPeer {
  readonly errors: string[];
  connect(url: string): Promise<void>;
  call(name: string, args: Record<string, unknown>, options?: { signal?: AbortSignal; onprogress?: () => void }): Promise<string>;
  close(): Promise<void>;
}

function textOf(result: { content?: unknown }): string {
  const first = (result.content as Array<{ text?: unknown }> | undefined)?.[0];
  return String(first?.text);
}

function sdk1(): SdkPeer {
  const errors: string[] = [];
  const client = new Sdk1Client({ name: 'sdk1-cancel', version: '1.0.0' });
  client.onerror = (error) => void errors.push(error.message);
  return {
    errors,
    connect: (url) => client.connect(new Sdk1Transport(new URL(url))),
    call: async (name, args, options = {}) => textOf((await client.callTool({ name, arguments: args }, CallToolResultSchema, options)) as { content?: unknown }),
    close: () => client.close(),
  };
}

function sdk2(): SdkPeer {
  const errors: string[] = [];
  const client = new Sdk2Client({ name: 'sdk2-cancel', version: '2.0.0' }, { supportedProtocolVersions: ['2025-11-25'], versionNegotiation: { mode: 'legacy' } });
  client.onerror = (error) => void errors.push(error.message);
  return {
    errors,
    async connect(url) {
      await client.connect(new Sdk2Transport(new URL(url)));
      assert.equal(client.getProtocolEra(), 'legacy');
    },
    call: async (name, args, options = {}) => textOf(await client.callTool({ name, arguments: args }, options)),
    close: () => client.close(),
  };
}

const CLIENTS = { 'SDK 1.x': sdk1, 'SDK 2.x (legacy era)': sdk2 } as const;

/** Calls `tick` and aborts it at its second progress report; resolves once the call rejected. */
async function cancelAtSecondProgress(peer: SdkPeer, key: string): Promise<void> {
  const abort = new AbortController();
  let reports = 0;
  const onprogress = (): void => {
    if (++reports === 2) abort.abort('the user stops it');
  };
  await assert.rejects(peer.call('tick', { key }, { signal: abort.signal, onprogress }));
  assert.equal(reports, 2, 'the call was aborted at its second progress report');
}

async function assertQuietCancel(proxy: RecordingProxy, calls: Map<string, Call>, makePeer: () => SdkPeer, key: string): Promise<void> {
  const peer = makePeer();
  await peer.connect(proxy.url);
  try {
    // The standalone GET stream is open (a resumption that fell back to a plain GET would be answered 409).
    await eventually(() => proxy.requests.some((request) => request.method === 'GET' && request.status === 200), 5_000, 'the standalone GET stream to open');
    const before = proxy.requests.length;
    await cancelAtSecondProgress(peer, key);
    await calls.get(key)?.aborted;
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const after = proxy.requests.slice(before);
    assert.deepEqual(after.map((request) => `${request.method} ${request.status}`), ['POST 200', 'POST 202'], 'the call and its cancellation, then nothing: no resumption, no GET');
    assert.equal(proxy.requests.filter((request) => request.status === 409).length, 0, 'no 409');
    assert.deepEqual(peer.errors, [], 'no client error event');
    assert.equal(await peer.call('echo', { text: 'next' }), 'echo: next', 'the next call works');
    assert.deepEqual(peer.errors, []);
  } finally {
    await peer.close();
  }
  await eventually(() => proxy.open === 0, 5_000, 'every exchange the client opened to end once it closed');
}

describe('legacy Streamable HTTP: an official client cancelling a call ends it quietly', () => {
  const calls = new Map<string, Call>();
  let server: McpServer;
  let host: SessionHost;
  let http: StreamableHttpServer;
  let direct: ListeningServer;
  let nats: NatsServerProcess;
  const connections: NatsConnection[] = [];
  let serving: NatsServing;
  let gateway: Gateway;
  let throughGateway: ListeningServer;
  const proxies: RecordingProxy[] = [];
  let key = 0;

  before(async () => {
    server = tickingServer(calls);
    host = createSessionHost(server);
    http = createStreamableHttpServer({ server: host, sse: { retryMs: RETRY_MS } });
    direct = await http.listen(0);
    nats = await startNatsServer();
    const open = async (): Promise<NatsConnection> => {
      const made = await connect({ servers: nats.url });
      connections.push(made);
      return made;
    };
    serving = await serveNats(server, { connection: await open(), name: 'legacy-cancel' });
    gateway = await createGateway({ connection: await open(), name: 'legacy-cancel', http: { sse: { retryMs: RETRY_MS } } });
    throughGateway = await gateway.http.listen(0, '127.0.0.1');
  });

  after(async () => {
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await direct.close();
    await http.close();
    await host.close();
    await throughGateway.close();
    await gateway.close();
    await serving.close('end');
    await server.close();
    await Promise.allSettled(connections.map((made) => made.close()));
    await nats.dispose();
  });

  for (const [clientName, makePeer] of Object.entries(CLIENTS)) {
    test(`${clientName}, directly: no reconnection, no 409, no error event; the next call works`, async () => {
      const proxy = await startRecordingProxy(direct.url);
      proxies.push(proxy);
      await assertQuietCancel(proxy, calls, makePeer, `direct-${++key}`);
    });

    test(`${clientName}, through rxmcp gateway: no reconnection, no 409, no error event; the next call works`, async () => {
      const proxy = await startRecordingProxy(throughGateway.url);
      proxies.push(proxy);
      await assertQuietCancel(proxy, calls, makePeer, `gateway-${++key}`);
    });
  }
});
