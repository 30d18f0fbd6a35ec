/**
 * Interop: our `createClient` against the official SDK servers (interop-sdk-servers.ts): the 1.x `McpServer`
 * and the 2.x `McpServer` (2025-era revisions only), each
 *   - over stdio: a fixture program on the SDK's StdioServerTransport, spawned by our `spawnStdioServer`;
 *   - over Streamable HTTP: the SDK's server transport mounted on node:http in this process
 *     (interop-sdk-http.ts), reached by our `createStreamableHttpClientTransport`;
 *   - and the 1.x server over 2024-11-05 HTTP+SSE (SSEServerTransport), reached by the same client transport in
 *     its default `auto` mode, which falls back when the server refuses the Streamable HTTP POST.
 * Our client's transport is wrapped with the schema oracle (what we send) and with an inbound check (what the
 * SDK server sends, validated with `validateMessage`). HTTP servers start once per file; children are killed
 * by pid at the end.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { lastValueFrom, toArray } from 'rxjs';
import { isLocalError } from '../../core/errors.ts';
import type { Transport } from '../../core/transport.ts';
import type { LoggingMessageParams } from '../../core/protocol/index.ts';
import { createClient } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { createStreamableHttpClientTransport } from '../../transports/http/client/index.ts';
import { type StdioClientTransport, spawnStdioServer } from '../../transports/stdio/index.ts';
import { type InboundCheck, describeInbound, withInboundCheck } from '../support/interop-inbound-check.ts';
import { PROCESS_MS, fixtureCommand, killChildren, trackChild, until } from '../support/interop-processes.ts';
import { type SdkHttpServer, serveSdk1Http, serveSdk1LegacySse, serveSdk2Http } from '../support/interop-sdk-http.ts';
import { ITEM_TEMPLATE, README_TEXT, README_URI, SDK_LOGO_BASE64, SDK_LOGO_URI, SDK_TOOLS } from '../support/interop-sdk-servers.ts';
import { type SchemaOracle, withSchemaOracle } from '../support/schema-oracle.ts';
import { toolText } from '../support/interop-sdk-client-flow.ts';

interface Connection {
  readonly session: ClientSession;
  readonly oracle: SchemaOracle;
  readonly inbound: InboundCheck;
  readonly elicited: Array<{ readonly message: string }>;
  readonly logs: LoggingMessageParams[];
  close(): Promise<void>;
}

/** Our client (sampling and form elicitation declared) over `raw`, checked both ways. */
async function connectOurClient(raw: Transport): Promise<Omit<Connection, 'close'>> {
  const inbound = withInboundCheck(raw, 'server');
  const { transport, oracle } = withSchemaOracle(inbound.transport, { role: 'client' });
  const elicited: Array<{ message: string }> = [];
  const client = createClient({ era: 'legacy',
    name: 'rxmcp-interop-client',
    version: '0.1.0',
    sampling: () => ({ role: 'assistant', model: 'rxmcp-model', content: { type: 'text', text: 'fine' } }),
    elicitation: {
      form: (params) => {
        elicited.push({ message: params.message });
        return { action: 'accept', content: { name: 'Ada' } };
      },
    },
  });
  const session = await client.connect(transport, { initializeTimeoutMs: PROCESS_MS });
  const logs: LoggingMessageParams[] = [];
  session.logs$.subscribe((log) => logs.push(log));
  return { session, oracle, inbound, elicited, logs };
}

async function overStdio(fixture: string): Promise<Connection> {
  const raw: StdioClientTransport = await spawnStdioServer({ ...fixtureCommand(fixture), stderr: 'pipe' });
  trackChild(raw.pid, fixture);
  const stderr: string[] = [];
  raw.stderr$.subscribe((line) => stderr.push(line));
  const connection = await connectOurClient(raw);
  return {
    ...connection,
    async close() {
      await connection.session.close();
      const exit = await raw.exited;
      assert.deepEqual(exit, { code: 0, signal: null }, `the SDK server exited by itself once its stdin closed; stderr: ${stderr.join('\n')}`);
    },
  };
}

const httpServers = new Map<string, Promise<SdkHttpServer>>();
function httpServer(name: string, serve: () => Promise<SdkHttpServer>): Promise<SdkHttpServer> {
  let found = httpServers.get(name);
  if (found === undefined) httpServers.set(name, (found = serve()));
  return found;
}

/** Streamable HTTP; or, against an HTTP+SSE-only server, the 2024-11-05 fallback of our transport's default `auto` mode. */
async function overHttp(name: string, serve: () => Promise<SdkHttpServer>, expected: 'streamable' | 'legacy' = 'streamable'): Promise<Connection> {
  const server = await httpServer(name, serve);
  const raw = createStreamableHttpClientTransport(server.url);
  let getStream = false;
  raw.events$.subscribe((event) => {
    if (event.type === 'get-stream-opened') getStream = true;
  });
  const connection = await connectOurClient(raw);
  assert.equal(raw.mode, expected);
  if (expected === 'streamable') {
    assert.match(raw.sessionId ?? '', /\S/, 'the SDK server gave a session id');
    // Messages not tied to a request (the 1.x server's logs) travel on the standalone GET stream.
    await until(() => getStream, 'the standalone GET stream opened');
  }
  return {
    ...connection,
    async close() {
      const before = server.sessions;
      await connection.session.close();
      await until(() => server.sessions === before - 1, 'our close() ended the SDK session (DELETE, or the end of the SSE stream)');
    },
  };
}

after(async () => {
  for (const server of httpServers.values()) await (await server).close();
  const leftovers = await killChildren();
  assert.deepEqual(leftovers, [], 'every SDK server program exited on its own');
});

function describeAgainst(label: string, server: { name: string; version: string }, connect: () => Promise<Connection>): void {
  describe(label, { timeout: 60_000 }, () => {
    let connection: Connection | undefined;
    const current = (): Connection => {
      assert.ok(connection !== undefined, 'connected in before()');
      return connection;
    };
    const call = async (name: string, args = {}): Promise<string> => toolText(await current().session.callTool(name, args));
    before(async () => {
      connection = await connect();
    });
    after(async () => {
      await connection?.close();
    });

    test('initialize: 2025-11-25 is negotiated; server info and capabilities come through', () => {
      const { session } = current();
      assert.equal(session.session.revision, '2025-11-25');
      assert.deepEqual({ name: session.session.peerInfo?.name, version: session.session.peerInfo?.version }, server);
      const capabilities = session.serverCapabilities ?? {};
      for (const feature of ['tools', 'resources', 'prompts', 'logging', 'completions'] as const) {
        assert.ok(capabilities[feature] !== undefined, `the server declares ${feature}: ${JSON.stringify(capabilities)}`);
      }
    });

    test('tools/list: every tool, with input and output schemas', async () => {
      const tools = await current().session.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), [...SDK_TOOLS]);
      const add = tools.find((tool) => tool.name === 'add');
      assert.deepEqual(Object.keys((add?.inputSchema as { properties?: object }).properties ?? {}).sort(), ['a', 'b']);
      assert.equal((add?.outputSchema as { properties?: { sum?: { type?: unknown } } } | undefined)?.properties?.sum?.type, 'number');
    });

    test('tools/call: text, structured output (checked against its outputSchema), invalid arguments as an isError result', async () => {
      const { session } = current();
      assert.equal(await call('echo', { text: 'hi' }), 'echo: hi');
      const sum = await session.callTool('add', { a: 2, b: 3 });
      assert.deepEqual(sum.structuredContent, { sum: 5 });
      const invalid = await session.callTool('echo', { text: 42 });
      assert.equal(invalid.isError, true, JSON.stringify(invalid));
    });

    test('progress: callTool$ emits every step, then the result', async () => {
      const events = await lastValueFrom(current().session.callTool$('count', { steps: 3 }, { progress: true }).pipe(toArray()));
      const progress = events.filter((event) => event.type === 'progress');
      assert.deepEqual(progress.map(({ progress: step, total, message }) => ({ step, total, message })), [1, 2, 3].map((step) => ({ step, total: 3, message: `step ${step}` })));
      const last = events.at(-1);
      assert.equal(last?.type, 'result');
      assert.equal(last?.type === 'result' ? toolText(last.result) : '', 'counted 3');
    });

    test("elicitation: the SDK server's elicitation/create is answered by our handler", async () => {
      const before = current().elicited.length;
      assert.equal(await call('ask'), 'hello Ada');
      assert.deepEqual(current().elicited.slice(before), [{ message: 'Who is asking?' }]);
    });

    test("sampling: the SDK server's sampling/createMessage is answered by our handler", async () => {
      assert.equal(await call('summarize', { text: 'anything' }), 'rxmcp-model: fine');
    });

    test('resources: list, templates, text, blob and a template instance', async () => {
      const { session } = current();
      assert.deepEqual((await session.listResources()).map((resource) => resource.uri), [README_URI, SDK_LOGO_URI]);
      assert.deepEqual((await session.listResourceTemplates()).map((template) => template.uriTemplate), [ITEM_TEMPLATE]);
      assert.deepEqual((await session.readResource(README_URI)).contents, [{ uri: README_URI, mimeType: 'text/plain', text: README_TEXT }]);
      assert.deepEqual((await session.readResource(SDK_LOGO_URI)).contents, [{ uri: SDK_LOGO_URI, mimeType: 'image/png', blob: SDK_LOGO_BASE64 }]);
      assert.deepEqual((await session.readResource('sdk://items/beta')).contents, [{ uri: 'sdk://items/beta', text: 'item beta' }]);
    });

    test('prompts: list and get', async () => {
      const { session } = current();
      const prompts = await session.listPrompts();
      assert.deepEqual(prompts.map((prompt) => ({ name: prompt.name, arguments: prompt.arguments?.map((argument) => [argument.name, argument.required]) })), [
        { name: 'greet', arguments: [['name', true]] },
      ]);
      const prompt = await session.getPrompt('greet', { name: 'Grace' });
      assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Please greet Grace.' } }]);
    });

    test('completion: a prompt argument and a template variable', async () => {
      const { session } = current();
      assert.deepEqual((await session.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: 'A' })).completion.values, ['Ada', 'Alan']);
      assert.deepEqual((await session.complete({ type: 'ref/resource', uri: ITEM_TEMPLATE }, { name: 'id', value: 'a' })).completion.values, ['alpha', 'apex']);
    });

    test('logging: every level by default; after setLogLevel("warning") only warning and error', async () => {
      const { session, logs } = current();
      const levels = (from: number): string[] => logs.slice(from).filter((log) => log.logger === 'sdk').map((log) => log.level);
      let from = logs.length;
      assert.equal(await call('log'), 'logged');
      await until(() => levels(from).length === 4, 'four messages arrived');
      assert.deepEqual(levels(from), ['debug', 'info', 'warning', 'error']);
      await session.setLogLevel('warning');
      from = logs.length;
      assert.equal(await call('log'), 'logged');
      await until(() => levels(from).length >= 2, 'two messages arrived');
      assert.deepEqual(levels(from), ['warning', 'error']);
    });

    test("cancellation: aborting our call's signal aborts the SDK handler's signal", async () => {
      const key = randomUUID();
      const controller = new AbortController();
      const hanging = current().session.callTool('hang', { key }, { signal: controller.signal });
      hanging.catch(() => undefined);
      await until(async () => (await call('hang-state', { key })) === 'running', 'the SDK handler started');
      controller.abort();
      await assert.rejects(hanging, (error: unknown) => isLocalError(error) && error.code === 'RequestAborted');
      await until(async () => (await call('hang-state', { key })) === 'aborted', 'notifications/cancelled reached the SDK handler');
    });

    test('schemas: everything we sent, and everything the SDK server sent, is valid for 2025-11-25', () => {
      const { oracle, inbound } = current();
      oracle.assertClean();
      assert.ok(inbound.checked > 20, `inbound messages were checked (${inbound.checked})`);
      assert.equal(describeInbound(inbound.violations), '');
    });
  });
}

describeAgainst('rxmcp client vs SDK 1.x McpServer - stdio (StdioServerTransport program, our spawnStdioServer)', { name: 'sdk1-interop-server', version: '1.0.0' }, () =>
  overStdio('sdk1-stdio-server.ts'),
);
describeAgainst('rxmcp client vs SDK 2.x McpServer (legacy only) - stdio (StdioServerTransport program, our spawnStdioServer)', { name: 'sdk2-interop-server', version: '2.0.0' }, () =>
  overStdio('sdk2-stdio-server.ts'),
);
describeAgainst('rxmcp client vs SDK 1.x McpServer - Streamable HTTP (StreamableHTTPServerTransport on node:http)', { name: 'sdk1-interop-server', version: '1.0.0' }, () =>
  overHttp('sdk1', serveSdk1Http),
);
describeAgainst('rxmcp client vs SDK 2.x McpServer (legacy only) - Streamable HTTP (WebStandardStreamableHTTPServerTransport on node:http)', { name: 'sdk2-interop-server', version: '2.0.0' }, () =>
  overHttp('sdk2', serveSdk2Http),
);
describeAgainst('rxmcp client vs SDK 1.x McpServer - 2024-11-05 HTTP+SSE (SSEServerTransport; our transport falls back from Streamable HTTP)', { name: 'sdk1-interop-server', version: '1.0.0' }, () =>
  overHttp('sdk1-sse', serveSdk1LegacySse, 'legacy'),
);
