/**
 * Interop, modern era (2026-07-28): our `createClient` (era `auto`, the default: probe `server/discover`, fall
 * back to `initialize`) against the official SDK 2.x dual-era server entries (sdk2-modern-server.ts), over
 *   - stdio: a fixture program on `serveStdio`, spawned by our `spawnStdioServer`;
 *   - Streamable HTTP: `createMcpHandler` mounted on node:http in this process (sdk2-http.ts), reached by our
 *     `createStreamableHttpClientTransport`.
 * Both run the same flow: the era is detected as modern; tools are listed and called; the SDK's
 * `inputRequired` elicitation, sampling and roots requests are answered by our client's handlers (the caller
 * sees one call); a resource is read and a prompt got; `listen$` and `listChanged$` hear the tools/list_changed
 * the SDK server publishes. What the SDK sends is checked against the 2026-07-28 schema, what we send by the
 * schema oracle.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { filter, firstValueFrom, take, toArray } from 'rxjs';
import { createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import { WireError, isLocalError } from '../../../core/errors.ts';
import type { Transport } from '../../../core/transport.ts';
import { createStreamableHttpClientTransport } from '../../../transports/http/client/index.ts';
import { type StdioClientTransport, spawnStdioServer } from '../../../transports/stdio/index.ts';
import { PROCESS_MS, fixtureCommand, killChildren, trackChild, until } from '../../support/interop-processes.ts';
import { type SchemaOracle, withSchemaOracle } from '../../support/schema-oracle.ts';
import { MODERN_REVISION, type ModernInboundCheck, withModernInboundCheck } from './modern-inbound-check.ts';
import { type Sdk2HttpServer, serveSdk2ModernHttp } from './sdk2-http.ts';
import { CONFIG_TEXT, CONFIG_URI, SDK2_SERVER_NAME, SDK2_TOOLS, sdk2ServerFactory } from './sdk2-modern-server.ts';

const T = { timeout: 10_000 };
const ROOTS = [{ uri: 'file:///srv/one', name: 'one' }, { uri: 'file:///srv/two' }];

interface Connection {
  readonly session: ClientSession;
  readonly oracle: SchemaOracle;
  readonly inbound: ModernInboundCheck;
  readonly elicited: string[];
  readonly sampled: string[];
  close(): Promise<void>;
}

after(async () => {
  const leftovers = await killChildren();
  assert.deepEqual(leftovers, [], 'every child exited on its own once its client closed');
});

/** Our client (era auto; sampling, form elicitation and roots) over `raw`, checked both ways. */
async function connectOurClient(raw: Transport): Promise<Omit<Connection, 'close'>> {
  const inbound = withModernInboundCheck(raw);
  const connected: { session?: ClientSession } = {};
  const { transport, oracle } = withSchemaOracle(inbound.transport, {
    role: 'client',
    revision: () => (connected.session?.session.era === 'modern' ? MODERN_REVISION : undefined),
  });
  const elicited: string[] = [];
  const sampled: string[] = [];
  const client = createClient({
    name: 'rxmcp-modern-client',
    version: '0.1.0',
    sampling: (params) => {
      const content = params.messages[0]?.content;
      const first = (Array.isArray(content) ? content[0] : content) as { type?: string; text?: string } | undefined;
      sampled.push(first?.type === 'text' ? (first.text ?? '') : '?');
      return { role: 'assistant', model: 'rxmcp-model', content: { type: 'text', text: 'fine' } };
    },
    elicitation: {
      form: (params) => {
        elicited.push(params.message);
        return { action: 'accept', content: { ok: true } };
      },
    },
    roots: ROOTS,
  });
  const session = await client.connect(transport, { initializeTimeoutMs: PROCESS_MS });
  connected.session = session;
  return { session, oracle, inbound, elicited, sampled };
}

function textOf(result: { content: ReadonlyArray<{ type: string }> }): string {
  const first = result.content[0] as { type: string; text?: string } | undefined;
  return first?.type === 'text' ? (first.text ?? '') : JSON.stringify(result);
}

function describeAgainstSdk2(label: string, connect: () => Promise<Connection>, more?: (current: () => Connection) => void): void {
  describe(label, () => {
    let connection: Connection | undefined;
    const current = (): Connection => {
      assert.ok(connection !== undefined, 'connected');
      return connection;
    };
    before(async () => {
      connection = await connect();
    });
    after(async () => {
      await connection?.close();
    });

    test('our client detects the modern era (server/discover answered), no initialize sent', T, () => {
      const { session, inbound } = current();
      assert.equal(session.session.era, 'modern');
      assert.equal(session.session.peerInfo?.name, SDK2_SERVER_NAME);
      assert.equal(session.serverCapabilities?.tools?.listChanged, true);
      assert.equal(session.session.instructions, 'An SDK 2.x server.');
      const methods = inbound.sent.map((message) => (message as { method?: unknown }).method);
      assert.equal(methods[0], 'server/discover', 'the probe went first');
      assert.ok(!methods.includes('initialize'), 'no initialize');
    });

    test('tools/list and tools/call', T, async () => {
      const { session } = current();
      const names = (await session.listTools()).map((tool) => tool.name);
      for (const name of SDK2_TOOLS) assert.ok(names.includes(name), `${name} listed`);
      assert.equal(textOf(await session.callTool('echo', { text: 'hi there' })), 'echo:hi there');
    });

    test("the SDK's inputRequired elicitation is answered by our elicitation handler, the state echoed", T, async () => {
      const { session, elicited } = current();
      const before = elicited.length;
      assert.equal(textOf(await session.callTool('confirm', { what: 'the launch' })), 'confirmed the launch: ok=true state=round1');
      assert.deepEqual(elicited.slice(before), ['Confirm the launch?']);
    });

    test("the SDK's sampling and roots input requests of one round are answered by our handlers", T, async () => {
      const { session, sampled } = current();
      const before = sampled.length;
      assert.equal(textOf(await session.callTool('sample-roots')), `sampled rxmcp-model: fine; roots: ${ROOTS.map((root) => root.uri).join(' ')}`);
      assert.deepEqual(sampled.slice(before), ['hi']);
    });

    test('resources/read and prompts/get', T, async () => {
      const { session } = current();
      const read = await session.readResource(CONFIG_URI);
      assert.deepEqual(read.contents, [{ uri: CONFIG_URI, text: CONFIG_TEXT }]);
      const prompt = await session.getPrompt('greet', { name: 'Ada' });
      assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }]);
    });

    test('listen$: acknowledged, then tools/list_changed when the SDK server publishes a change', T, async () => {
      const { session } = current();
      const events: Array<{ method: string }> = [];
      const subscription = session.listen$({ toolsListChanged: true }).subscribe({ next: (event) => void events.push(event) });
      try {
        await until(() => events.some((event) => event.method === 'notifications/subscriptions/acknowledged'), 'the listen acknowledgement', 5000);
        assert.equal(textOf(await session.callTool('add-tool', { name: 'via-listen' })), 'added via-listen');
        await until(() => events.some((event) => event.method === 'notifications/tools/list_changed'), 'tools/list_changed on listen$', 5000);
        assert.ok((await session.listTools()).some((tool) => tool.name === 'via-listen'), 'the new tool is listed');
        assert.equal(textOf(await session.callTool('via-listen')), 'dynamic via-listen');
        assert.equal(events[0]?.method, 'notifications/subscriptions/acknowledged', 'the acknowledgement came first');
      } finally {
        subscription.unsubscribe();
      }
    });

    test('listChanged$ (a listen stream while watched) hears the change as "tools"', T, async () => {
      const { session } = current();
      const changes = firstValueFrom(session.listChanged$.pipe(filter((change) => change === 'tools'), take(1), toArray()));
      // The stream's acknowledgement is not visible here: publish until a change arrives.
      let published = 0;
      let heard = false;
      void changes.then(() => void (heard = true));
      await until(async () => {
        if (heard) return true;
        await session.callTool('add-tool', { name: `via-changes-${++published}` });
        await new Promise((resolve) => setTimeout(resolve, 50));
        return heard;
      }, 'a tools change on listChanged$', 5000);
      assert.deepEqual(await changes, ['tools']);
    });

    test('a missing resource is an error from the SDK server (-32602), and the connection goes on', T, async () => {
      const { session } = current();
      await assert.rejects(session.readResource('config://missing'), (error: unknown) => {
        assert.ok(error instanceof WireError, String(error));
        assert.equal(error.code, -32602);
        return true;
      });
      assert.equal(textOf(await session.callTool('echo', { text: 'after' })), 'echo:after');
    });

    test('cancellation: aborting our call aborts the SDK handler (a closed POST over HTTP, notifications/cancelled on stdio)', T, async () => {
      const { session } = current();
      const aborter = new AbortController();
      const hung = session.callTool('hang', { key: 'ours' }, { signal: aborter.signal });
      const state = async (): Promise<string> => textOf(await session.callTool('hang-state', { key: 'ours' }));
      await until(async () => (await state()) === 'running', 'the SDK handler started', 5000);
      aborter.abort();
      await assert.rejects(hung, (error: unknown) => isLocalError(error) && error.code === 'RequestAborted');
      await until(async () => (await state()) === 'aborted', 'the SDK handler saw the cancellation', 5000);
    });

    test('subscribe$ (a listen stream naming the URI) receives the resources/updated the SDK server publishes', T, async () => {
      const { session } = current();
      const updates: string[] = [];
      const subscription = session.subscribe$(CONFIG_URI).subscribe({ next: (update) => void updates.push(update.uri) });
      try {
        // The acknowledgement is not visible through subscribe$: publish until an update arrives.
        await until(async () => {
          await session.callTool('touch');
          await new Promise((resolve) => setTimeout(resolve, 50));
          return updates.length > 0;
        }, 'resources/updated on subscribe$', 5000);
        assert.equal(updates[0], CONFIG_URI);
      } finally {
        subscription.unsubscribe();
      }
    });

    test('what the SDK sent is valid 2026-07-28; what we sent passes the schema oracle', T, () => {
      const { oracle, inbound } = current();
      oracle.assertClean();
      assert.ok(inbound.checked > 10, `inbound messages were checked (${inbound.checked})`);
      assert.equal(inbound.violations.join('\n'), '');
    });

    more?.(current);
  });
}

// --- stdio --------------------------------------------------------------------------------------------------

describeAgainstSdk2('stdio: our spawnStdioServer + createClient (auto) against serveStdio', async () => {
  const raw: StdioClientTransport = await spawnStdioServer({ ...fixtureCommand('modern/sdk2-modern-stdio-server.ts'), stderr: 'pipe' });
  trackChild(raw.pid, 'sdk2 modern stdio fixture');
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
});

// --- Streamable HTTP ----------------------------------------------------------------------------------------

let http: Sdk2HttpServer | undefined;
describeAgainstSdk2('http: our createStreamableHttpClientTransport + createClient (auto) against createMcpHandler', async () => {
  http = await serveSdk2ModernHttp();
  const connection = await connectOurClient(createStreamableHttpClientTransport(http.url));
  return {
    ...connection,
    async close() {
      await connection.session.close();
      const served = http;
      http = undefined;
      await served?.close();
      assert.deepEqual(served?.errors ?? [], [], 'the SDK handler reported no errors');
    },
  };
}, () => {
  test('on the wire: modern POSTs only (2026-07-28 header, no session), discovery first, listens on SSE', T, () => {
    assert.ok(http !== undefined);
    const posts = http.seen.filter((request) => request.method === 'POST');
    assert.ok(posts.length > 10, `the SDK handler was POSTed to (${posts.length})`);
    assert.deepEqual(http.seen.filter((request) => request.method !== 'POST'), [], 'no GET or DELETE: the modern era has no session streams');
    assert.equal(posts[0]?.mcpMethod, 'server/discover');
    for (const post of posts) {
      assert.equal(post.protocolVersion, MODERN_REVISION, `${post.mcpMethod ?? '?'} named 2026-07-28 in MCP-Protocol-Version`);
      assert.equal(post.sessionId, undefined, 'no Mcp-Session-Id');
      assert.equal(post.mcpMethod, (post.body as { method?: unknown }).method, 'Mcp-Method mirrors the body');
    }
    assert.ok(posts.some((post) => post.mcpMethod === 'subscriptions/listen'), 'listen streams were opened');
    assert.ok(!posts.some((post) => post.mcpMethod === 'initialize'), 'no initialize');
  });
});

// The factory is shared by both entries: a sanity check that it builds without a transport.
test('the SDK 2.x server factory builds an McpServer', T, () => {
  assert.equal(typeof sdk2ServerFactory()().registerTool, 'function');
});

// --- a subscription the server does not honour -------------------------------------------------------------

test(
  'subscribe$ fails when the listen acknowledgement does not honour the URI (the server declares no resources.subscribe)',
  T,
  async () => {
    const narrow = await serveSdk2ModernHttp({ resourceSubscribe: false });
    const session = await createClient({ name: 'rxmcp-modern-client', version: '0.1.0' }).connect(createStreamableHttpClientTransport(narrow.url));
    try {
      assert.equal(session.session.era, 'modern');
      assert.equal(session.serverCapabilities?.resources?.subscribe, false);
      // A legacy subscribe$ fails when the server refuses resources/subscribe; the modern one should fail when the
      // acknowledgement leaves the URI out, instead of waiting for updates that will never come.
      const outcome = await new Promise<string>((resolve) => {
        const timer = setTimeout(() => {
          subscription.unsubscribe();
          resolve('still waiting after 1 s');
        }, 1000);
        const settle = (what: string): void => {
          clearTimeout(timer);
          resolve(what);
        };
        const subscription = session.subscribe$(CONFIG_URI).subscribe({
          next: () => settle('an update'),
          error: (error: unknown) => settle(`failed: ${String(error)}`),
          complete: () => settle('completed without an error'),
        });
      });
      assert.match(outcome, /^failed: /);
    } finally {
      await session.close();
      await narrow.close();
    }
  },
);
