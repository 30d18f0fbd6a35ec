/**
 * Interop: our client against the reference server `@modelcontextprotocol/server-everything` (built on the
 * SDK 1.x), over stdio (`node dist/index.js stdio`, spawned by our spawnStdioServer). Every tool it lists is
 * called with arguments built from its inputSchema (and checked against it); its resources are paged through
 * and a sample of 20+ read (text and blob); every prompt is got; completion is asked wherever it completes.
 * Our client declares sampling, elicitation (form and URL) and roots, so the server registers its
 * conditional tools; it declares no client-side tasks, so the two "-async" tools stay unregistered.
 * What we send is checked by the schema oracle, what we receive by `validateMessage` (interop-inbound-check.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isWireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { CallToolResult, CreateMessageParams, ElicitRequestFormParams, LoggingMessageParams, Root, Tool } from '../../core/protocol/index.ts';
import { compileSchema } from '../../core/schema/index.ts';
import { type McpClient, createClient } from '../../client/create-client.ts';
import type { ClientSession, ListChange } from '../../client/session-api.ts';
import { type StdioClientTransport, spawnStdioServer } from '../../transports/stdio/index.ts';
import { type InboundCheck, describeInbound, withInboundCheck } from '../support/interop-inbound-check.ts';
import { PROCESS_MS, REPO_ROOT, killChildren, trackChild, until } from '../support/interop-processes.ts';
import { type SchemaOracle, withSchemaOracle } from '../support/schema-oracle.ts';
import { TOOL_CHECKS, type ToolContext } from '../support/interop-everything-tools.ts';

const ENTRY = 'node_modules/@modelcontextprotocol/server-everything/dist/index.js';
const ROOT = { uri: 'file:///tmp/rxmcp-interop', name: 'interop root' };
const DOCS = ['architecture.md', 'extension.md', 'features.md', 'how-it-works.md', 'instructions.md', 'startup.md', 'structure.md'];
const TEXT_TEMPLATE = 'demo://resource/dynamic/text/{resourceId}';
const BLOB_TEMPLATE = 'demo://resource/dynamic/blob/{resourceId}';

let raw: StdioClientTransport | undefined;
let client: McpClient | undefined;
let session: ClientSession | undefined;
let oracle: SchemaOracle | undefined;
let inbound: InboundCheck | undefined;
let listed: Tool[] = [];
let rootsNow: readonly Root[] = [ROOT];
const logs: LoggingMessageParams[] = [];
const changes: ListChange[] = [];
const samplings: CreateMessageParams[] = [];
const forms: ElicitRequestFormParams[] = [];
const urls: string[] = [];
/** The task-only tool takes ~4 s: it is started in before() and collected by its test. */
let research: Promise<{ readonly taskId: string; readonly result: CallToolResult }> | undefined;

const connected = (): ClientSession => {
  assert.ok(session !== undefined, 'connected in before()');
  return session;
};

before(async () => {
  raw = await spawnStdioServer({ command: process.execPath, args: [ENTRY, 'stdio'], cwd: REPO_ROOT, stderr: 'pipe', shutdown: { stdinCloseWaitMs: 300 } });
  trackChild(raw.pid, 'server-everything');
  inbound = withInboundCheck(raw, 'server');
  const checked = withSchemaOracle(inbound.transport, { role: 'client' });
  oracle = checked.oracle;
  client = createClient({ era: 'legacy',
    name: 'rxmcp-everything-client',
    version: '0.1.0',
    sampling: (params) => {
      samplings.push(params);
      return { role: 'assistant', model: 'rxmcp-interop-model', content: { type: 'text', text: 'Hi from the interop model.' }, stopReason: 'endTurn' };
    },
    elicitation: {
      form: (params) => {
        forms.push(params);
        // Fields left out get the form's defaults from our client.
        return { action: 'accept', content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com', integer: 7 } };
      },
      url: (params) => {
        urls.push(params.url);
        return { action: 'accept' };
      },
    },
    roots: () => rootsNow,
  });
  session = await client.connect(checked.transport, { initializeTimeoutMs: PROCESS_MS });
  session.logs$.subscribe((log) => logs.push(log));
  session.listChanged$.subscribe((change) => changes.push(change));
  // Tools that depend on our capabilities are registered once the server saw `initialized` (then list_changed).
  await until(async () => (await connected().listTools()).some((tool) => tool.name === 'get-roots-list'), 'the conditional tools were registered');
  listed = await connected().listTools();
  research = connected()
    .callToolAsTask('simulate-research-query', { topic: 'rust', ambiguous: false })
    .then(async (created) => ({ taskId: created.task.taskId, result: await connected().taskResult<CallToolResult>(created.task.taskId, { timeoutMs: 20_000 }) }));
  research.catch(() => undefined);
});

after(async () => {
  await session?.close();
  const exit = raw === undefined ? undefined : await raw.exited;
  // server-everything keeps timers (its task store) alive past stdin EOF: our shutdown sequence SIGTERMs it.
  assert.ok(exit?.code === 0 || exit?.signal === 'SIGTERM', `the server ended by our shutdown sequence: ${JSON.stringify(exit)}`);
  assert.deepEqual(await killChildren(), []);
});

/** Arguments for an object schema: a value for every required property (enum first, by type otherwise). */
function argumentsFor(schema: Tool['inputSchema']): JsonObject {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown; enum?: unknown; format?: unknown }>;
  const args: Record<string, string | number | boolean> = {};
  for (const name of schema.required ?? []) {
    const property = properties[name] ?? {};
    if (Array.isArray(property.enum) && property.enum.length > 0) args[name] = property.enum[0] as string;
    else if (property.type === 'number' || property.type === 'integer') args[name] = 1;
    else if (property.type === 'boolean') args[name] = false;
    else args[name] = property.format === 'uri' ? 'https://example.com/' : 'sample';
  }
  return args;
}

describe('server-everything over stdio: the handshake and the tool list', { timeout: 60_000 }, () => {
  test('initialize: 2025-11-25; server info; capabilities include tasks and subscriptions', () => {
    const { session: core, serverCapabilities } = connected();
    assert.equal(core.revision, '2025-11-25');
    assert.deepEqual(core.peerInfo, { name: 'mcp-servers/everything', title: 'Everything Reference Server', version: '2.0.0' });
    assert.deepEqual(serverCapabilities?.resources, { subscribe: true, listChanged: true });
    assert.deepEqual(serverCapabilities?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    assert.ok(changes.includes('tools'), 'registering the conditional tools sent notifications/tools/list_changed');
  });

  test('tools/list: paged by hand it is what listTools() gives; every tool this spec knows is there, no other', async () => {
    const pages: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await connected().session.request<{ tools: Tool[]; nextCursor?: string }>('tools/list', cursor === undefined ? {} : { cursor });
      pages.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    assert.deepEqual(pages.map((tool) => tool.name), listed.map((tool) => tool.name));
    assert.deepEqual(listed.map((tool) => tool.name).sort(), Object.keys(TOOL_CHECKS).sort());
    for (const absent of ['trigger-sampling-request-async', 'trigger-elicitation-request-async']) assert.ok(!pages.some((tool) => tool.name === absent), absent);
    for (const tool of listed) assert.equal(tool.inputSchema.type, 'object', tool.name);
  });
});

describe('server-everything over stdio: every tool, called with arguments built from its inputSchema', { timeout: 60_000 }, () => {
  for (const [name, check] of Object.entries(TOOL_CHECKS)) {
    test(name, async () => {
      const tool = listed.find((candidate) => candidate.name === name);
      assert.ok(tool !== undefined, `${name} is listed`);
      const args = { ...argumentsFor(tool.inputSchema), ...check.args };
      const valid = compileSchema(tool.inputSchema as unknown as JsonObject, { rootMustBeObject: true }).validate(args);
      assert.ok(valid.ok, `the arguments fit ${name}'s inputSchema: ${valid.ok ? '' : valid.summary}`);
      const context: ToolContext = {
        session: connected(),
        args,
        logs,
        changes,
        samplings,
        forms,
        urls,
        research: () => research ?? Promise.reject(new Error('not started')),
        setRoots: (roots) => {
          rootsNow = [...roots];
          client?.setRoots(() => rootsNow);
        },
      };
      await check.run(context);
    });
  }
});

describe('server-everything over stdio: resources, prompts, completion, logging', { timeout: 60_000 }, () => {
  test('resources/list: paged by hand it is what listResources() gives; the docs are all there', async () => {
    const pages: Array<{ uri: string; mimeType?: string }> = [];
    let cursor: string | undefined;
    do {
      const page = await connected().session.request<{ resources: Array<{ uri: string }>; nextCursor?: string }>('resources/list', cursor === undefined ? {} : { cursor });
      pages.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const resources = await connected().listResources();
    assert.deepEqual(pages.map((resource) => resource.uri), resources.map((resource) => resource.uri));
    for (const doc of DOCS) assert.ok(resources.some((resource) => resource.uri === `demo://resource/static/document/${doc}` && resource.mimeType === 'text/markdown'), doc);
    assert.deepEqual((await connected().listResourceTemplates()).map((template) => template.uriTemplate), [TEXT_TEMPLATE, BLOB_TEMPLATE]);
  });

  test('resources/read: 21 resources (7 docs, 7 text and 7 blob instances of the templates), each as listed', async () => {
    const uris = [
      ...DOCS.map((doc) => `demo://resource/static/document/${doc}`),
      ...[1, 2, 3, 4, 5, 6, 7].flatMap((id) => [`demo://resource/dynamic/text/${id}`, `demo://resource/dynamic/blob/${id}`]),
    ];
    assert.ok(uris.length >= 20);
    for (const uri of uris) {
      const { contents } = await connected().readResource(uri);
      assert.equal(contents.length, 1, uri);
      const [content] = contents as Array<{ uri: string; mimeType?: string; text?: string; blob?: string }>;
      assert.equal(content?.uri, uri);
      const id = /\/(\d+)$/.exec(uri)?.[1];
      if (uri.includes('/blob/')) {
        assert.equal(content?.text, undefined, uri);
        assert.match(Buffer.from(content?.blob ?? '', 'base64').toString('utf8'), new RegExp(`^Resource ${id}: This is a base64 blob created at `));
      } else if (uri.includes('/text/')) {
        assert.match(content?.text ?? '', new RegExp(`^Resource ${id}: This is a plaintext resource created at `));
      } else {
        assert.equal(content?.mimeType, 'text/markdown', uri);
        assert.ok((content?.text ?? '').length > 100, `${uri} has a document`);
      }
    }
    await assert.rejects(connected().readResource('demo://resource/dynamic/text/zero'), (error: unknown) => isWireError(error));
  });

  test('prompts: every prompt, got with valid arguments; a bad argument fails', async () => {
    const prompts = await connected().listPrompts();
    assert.deepEqual(prompts.map((prompt) => prompt.name), ['simple-prompt', 'args-prompt', 'completable-prompt', 'resource-prompt']);
    const text = async (name: string, args: Record<string, string>): Promise<string[]> =>
      (await connected().getPrompt(name, args)).messages.map((message) => (message.content.type === 'text' ? message.content.text : message.content.type));
    assert.deepEqual(await text('simple-prompt', {}), ['This is a simple prompt without arguments.']);
    assert.deepEqual(await text('args-prompt', { city: 'Lyon' }), ["What's weather in Lyon?"]);
    assert.deepEqual(await text('args-prompt', { city: 'Austin', state: 'Texas' }), ["What's weather in Austin, Texas?"]);
    assert.deepEqual(await text('completable-prompt', { department: 'Engineering', name: 'Alice' }), ['Please promote Alice to the head of the Engineering team.']);
    const embedded = await connected().getPrompt('resource-prompt', { resourceType: 'Blob', resourceId: '2' });
    const resource = embedded.messages[1]?.content;
    assert.ok(resource?.type === 'resource' && 'blob' in resource.resource, JSON.stringify(resource));
    assert.equal(resource.resource.uri, 'demo://resource/dynamic/blob/2');
    await assert.rejects(connected().getPrompt('resource-prompt', { resourceType: 'Video', resourceId: '2' }), (error: unknown) => isWireError(error) && /Invalid resourceType/.test(error.message));
  });

  test('completion: prompt arguments (with context) and template variables; none where there is no completer', async () => {
    const complete = async (ref: Parameters<ClientSession['complete']>[0], name: string, value: string, context?: Record<string, string>): Promise<string[]> => [
      ...(await connected().complete(ref, { name, value }, context)).completion.values,
    ];
    const prompt = (name: string): Parameters<ClientSession['complete']>[0] => ({ type: 'ref/prompt', name });
    assert.deepEqual(await complete(prompt('completable-prompt'), 'department', 'S'), ['Sales', 'Support']);
    assert.deepEqual(await complete(prompt('completable-prompt'), 'name', '', { department: 'Marketing' }), ['Grace', 'Henry', 'Iris']);
    assert.deepEqual(await complete(prompt('resource-prompt'), 'resourceType', 'B'), ['Blob']);
    assert.deepEqual(await complete(prompt('resource-prompt'), 'resourceId', '4'), ['4']);
    assert.deepEqual(await complete(prompt('args-prompt'), 'city', 'Par'), []);
    assert.deepEqual(await complete({ type: 'ref/resource', uri: TEXT_TEMPLATE }, 'resourceId', '5'), ['5']);
    assert.deepEqual(await complete({ type: 'ref/resource', uri: BLOB_TEMPLATE }, 'resourceId', 'x'), []);
  });

  test('logging and subscriptions: subscribing is logged by the server at info; setLogLevel("error") silences it', async () => {
    const uri = 'demo://resource/static/document/startup.md';
    const received = (from: number): string[] => logs.slice(from).map((log) => String(log.data));
    await connected().setLogLevel('debug');
    let from = logs.length;
    const updates = connected().subscribe$(uri).subscribe();
    await until(() => received(from).some((data) => data.startsWith(`Received Subscribe Resource request for URI: ${uri}`)), 'the subscription was logged');
    updates.unsubscribe();
    await until(() => received(from).some((data) => data.startsWith(`Received Unsubscribe Resource request: ${uri}`)), 'the unsubscription was logged');
    await connected().setLogLevel('error');
    from = logs.length;
    // The server logs before it answers: once the answers are in, a log it sent would be here.
    await connected().session.request('resources/subscribe', { uri });
    await connected().session.request('resources/unsubscribe', { uri });
    assert.deepEqual(received(from), []);
    await connected().setLogLevel('debug');
  });

  test('schemas: everything we sent is valid for 2025-11-25, and so is everything server-everything sent', () => {
    assert.ok(oracle !== undefined && inbound !== undefined);
    oracle.assertClean();
    assert.ok(inbound.checked > 100, `inbound messages were checked (${inbound.checked})`);
    assert.equal(describeInbound(inbound.violations), '');
  });
});
