/**
 * Helpers for the stdio specs: spawning the fixture server program as a real child process (and making sure
 * every child started is gone at the end, killed by its pid if need be), connecting a project client to it
 * through the schema oracle, and an in-process server end over PassThrough streams driven by raw lines.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createStreamDecoder } from '../../core/codecs/framing.ts';
import { jsonCodec } from '../../core/codecs/json.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import { createClient } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { type McpServer, createServer } from '../../server/create-server.ts';
import type { McpSession } from '../../session/session-core.ts';
import {
  type SpawnStdioServerOptions,
  type StdioClientTransport,
  type StdioServerTransport,
  spawnStdioServer,
  createStdioServerTransport,
} from '../../transports/stdio/index.ts';
import { delay } from './harness.ts';
import { type SchemaOracle, withSchemaOracle } from './schema-oracle.ts';
import { programArgs } from './spec-program.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIXTURE = fileURLToPath(new URL('./stdio-fixtures/tools-server.ts', import.meta.url));
/** Generous bound for anything involving a child process starting (tsx compiles on the fly). */
export const PROCESS_MS = 15_000;

export type FixtureMode = 'normal' | 'linger' | 'stubborn';

const started = new Set<StdioClientTransport>();

/** Starts the fixture server; every child is remembered for {@link killLeftovers}. */
export async function spawnFixture(
  mode: FixtureMode = 'normal',
  options: Partial<Omit<SpawnStdioServerOptions, 'command' | 'args'>> = {},
): Promise<StdioClientTransport> {
  const transport = await spawnStdioServer({
    command: process.execPath,
    args: [...programArgs(FIXTURE), mode],
    cwd: REPO_ROOT,
    stderr: 'pipe',
    ...options,
  });
  started.add(transport);
  return transport;
}

/** Registers a transport started some other way for {@link killLeftovers}. */
export function track(transport: StdioClientTransport): StdioClientTransport {
  started.add(transport);
  return transport;
}

/** SIGKILLs (by pid) every child that is still running, and waits for it. For `after`/`afterEach`. */
export async function killLeftovers(): Promise<void> {
  const running = [...started];
  started.clear();
  await Promise.all(
    running.map(async (transport) => {
      const exited = await Promise.race([transport.exited, delay(0).then(() => undefined)]);
      if (exited !== undefined) return;
      try {
        process.kill(transport.pid, 'SIGKILL');
      } catch {
        return; // already gone
      }
      await transport.exited;
    }),
  );
}

export interface FixtureConnection {
  readonly transport: StdioClientTransport;
  readonly session: ClientSession;
  readonly oracle: SchemaOracle;
  /** Every stderr line of the child so far. */
  readonly stderr: string[];
}

/** Spawns the fixture and connects a project client to it, the client's transport checked by the oracle. */
export async function connectFixture(
  mode: FixtureMode = 'normal',
  options: Partial<Omit<SpawnStdioServerOptions, 'command' | 'args'>> = {},
): Promise<FixtureConnection> {
  const transport = await spawnFixture(mode, options);
  const stderr: string[] = [];
  transport.stderr$.subscribe((line) => stderr.push(line));
  const checked = withSchemaOracle(transport, { role: 'client' });
  const client = createClient({ era: 'legacy', name: 'stdio-spec-client', version: '1.0.0' });
  const session = await client.connect(checked.transport, { initializeTimeoutMs: PROCESS_MS });
  return { transport, session, oracle: checked.oracle, stderr };
}

// --- in-process server end over PassThrough streams --------------------------------------------------------

export interface RawStdioPeer {
  readonly stdin: PassThrough;
  readonly stdout: PassThrough;
  readonly transport: StdioServerTransport;
  readonly server: McpServer;
  readonly session: McpSession;
  readonly oracle: SchemaOracle;
  /** Every message the server wrote to stdout, decoded. */
  readonly received: JsonObject[];
  /** Writes one message as a line. */
  send(message: JsonObject): void;
  /** Writes raw text to the server's stdin. */
  write(text: string): void;
  /** Sends initialize and initialized, and waits for the answer. */
  handshake(): Promise<void>;
  /** Waits for the first message after `from` matching `match`. */
  next(match: (message: JsonObject) => boolean, from?: number): Promise<JsonObject>;
}

export function rawStdioPeer(maxMessageBytes?: number): RawStdioPeer {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = createStdioServerTransport({ stdin, stdout, guardConsole: false, ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }) });
  const { transport: checked, oracle } = withSchemaOracle(transport, { role: 'server' });
  const server = createServer({ name: 'stdio-spec-server', version: '1.0.0' });
  server.tool(
    { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
    ({ text }) => String(text),
  );
  const session = server.accept(checked);
  const received: JsonObject[] = [];
  const decoder = createStreamDecoder(jsonCodec, 64 * 1024 * 1024);
  stdout.on('data', (chunk: Buffer) =>
    decoder.push(chunk, (item) => {
      assert.ok(item.ok, 'the server writes only well-formed JSON lines');
      received.push(item.value as JsonObject);
    }),
  );
  const write = (text: string): void => void stdin.write(text);
  const send = (message: JsonObject): void => write(`${JSON.stringify(message)}\n`);
  async function next(match: (message: JsonObject) => boolean, from = 0): Promise<JsonObject> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const found = received.slice(from).find(match);
      if (found !== undefined) return found;
      if (Date.now() > deadline) assert.fail(`no matching message arrived; got ${JSON.stringify(received).slice(0, 500)}`);
      await delay(2);
    }
  }
  return {
    stdin,
    stdout,
    transport,
    server,
    session,
    oracle,
    received,
    send,
    write,
    next,
    async handshake() {
      send({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0.0.0' } },
      });
      await next((message) => message['id'] === 'init');
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    },
  };
}

/** The error member of an id-less error response. */
export const idlessError = (message: JsonObject): boolean => !('id' in message) && typeof message['error'] === 'object';

export const errorCodeOf = (message: JsonObject): unknown => (message['error'] as JsonObject | undefined)?.['code'];
