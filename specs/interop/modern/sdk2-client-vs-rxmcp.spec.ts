/**
 * Interop, modern era (2026-07-28): the official SDK 2.x `Client` with `versionNegotiation: { mode: 'auto' }`
 * against our dual-era server (rxmcp-modern-server.ts), over
 *   - stdio: our fixture program (serveStdio) spawned by the SDK (a StdioClientTransport subclass, which
 *     probes `server/discover` on the same pipe: one process);
 *   - Streamable HTTP: createStreamableHttpServer(...).listen(0) in this process, the SDK's
 *     StreamableHTTPClientTransport.
 * Both run the same flow: the era is discovered as modern; tools are listed and called; our tools' elicitation,
 * sampling and roots calls become `input_required` rounds that the SDK client answers with its own handlers; a
 * resource is read and a prompt got; a `subscriptions/listen` stream hears tools/list_changed when our server
 * registers a tool; a missing resource is an error; progress, per-request log levels, cancellation and resource
 * subscriptions work. The schema oracle checks everything our server sent. A last test uses the SDK's base
 * StdioClientTransport, which probes on a disposable sibling copy of our program.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type StreamableHttpServer, createStreamableHttpServer } from '../../../transports/http/index.ts';
import { PROCESS_MS, fixtureCommand, isRunning, killChildren, trackChild, until } from '../../support/interop-processes.ts';
import { NOTE_TEXT, NOTE_URI, type OracleReport, RXMCP_SERVER_NAME, RXMCP_TOOLS, createModernInteropServer } from './rxmcp-modern-server.ts';
import { CLIENT_ROOTS, SAMPLED_MODEL, SAMPLED_TEXT, SDK2_CLIENT_NAME, SameProcessStdioClientTransport, type Sdk2Recorded, firstText, sdk2ModernClient } from './sdk2-modern-client.ts';

const T = { timeout: 10_000 };
const MODERN = '2026-07-28';

interface Target {
  readonly client: Client;
  readonly recorded: Sdk2Recorded;
  /** What the schema oracle found in what our server sent so far. */
  report(): Promise<OracleReport>;
  close(): Promise<void>;
}

after(async () => {
  const leftovers = await killChildren();
  assert.deepEqual(leftovers, [], 'every child exited on its own once its client closed');
});

function describeModernFlow(label: string, connect: () => Promise<Target>): void {
  describe(label, () => {
    let target: Target | undefined;
    const current = (): Target => {
      assert.ok(target !== undefined, 'connected');
      return target;
    };
    before(async () => {
      target = await connect();
    });
    after(async () => {
      await target?.close();
    });

    test('the SDK discovers the modern era: server/discover, no initialize', T, async () => {
      const { client, report } = current();
      const { received } = await report();
      assert.equal(received[0], 'server/discover', 'the probe came first');
      assert.ok(!received.includes('initialize'), 'no initialize');
      assert.equal(client.getProtocolEra(), 'modern');
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      assert.equal(client.getServerVersion()?.name, RXMCP_SERVER_NAME);
      assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
      assert.equal(client.getInstructions(), 'A dual-era rxmcp server for the modern interop specs.');
    });

    test('tools/list and tools/call; our server sees each request in 2026-07-28 from the envelope', T, async () => {
      const { client } = current();
      const listed = await client.listTools();
      for (const name of RXMCP_TOOLS) assert.ok(listed.tools.some((tool) => tool.name === name), `${name} listed`);
      assert.equal(firstText(await client.callTool({ name: 'echo', arguments: { text: 'modern hello' } })), 'echo: modern hello');
      assert.equal(firstText(await client.callTool({ name: 'whoami', arguments: {} })), `${MODERN} ${SDK2_CLIENT_NAME}`);
    });

    test('elicitation: ctx.elicit becomes an input_required round the SDK client answers with its handler', T, async () => {
      const { client, recorded } = current();
      const before = recorded.elicitations.length;
      const result = await client.callTool({ name: 'confirm', arguments: { what: 'the launch' } });
      assert.equal(firstText(result), 'confirmed the launch: ok=true');
      assert.equal(recorded.elicitations.length, before + 1, 'the handler was asked once');
      assert.equal(recorded.elicitations[before]?.message, 'Confirm the launch?');
      assert.deepEqual(recorded.elicitations[before]?.requestedSchema, { type: 'object', properties: { ok: { type: 'boolean', title: 'OK' } }, required: ['ok'] });
    });

    test('sampling and roots rounds: ctx.sample and ctx.roots are answered by the SDK handlers', T, async () => {
      const { client, recorded } = current();
      const samplings = recorded.samplings.length;
      const summarized = await client.callTool({ name: 'summarize', arguments: { text: 'a long story' } });
      assert.equal(firstText(summarized), `model ${SAMPLED_MODEL} said: ${SAMPLED_TEXT}`);
      assert.deepEqual(recorded.samplings.slice(samplings), [{ text: 'Summarize: a long story', maxTokens: 32 }]);
      const rootsLists = recorded.rootsLists;
      assert.equal(firstText(await client.callTool({ name: 'where', arguments: {} })), `roots: ${CLIENT_ROOTS.map((root) => root.uri).join(' ')}`);
      assert.equal(recorded.rootsLists, rootsLists + 1);
    });

    test('resources/read and prompts/get', T, async () => {
      const { client } = current();
      const read = await client.readResource({ uri: NOTE_URI });
      assert.deepEqual(read.contents, [{ uri: NOTE_URI, mimeType: 'text/plain', text: NOTE_TEXT }]);
      const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
      assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Hello Ada, nice to meet you.' } }]);
    });

    test('a missing resource is an error (-32602 in 2026-07-28), and the connection goes on', T, async () => {
      const { client } = current();
      await assert.rejects(client.readResource({ uri: 'memo://missing' }), (error: unknown) => {
        assert.ok(error instanceof ProtocolError, `a protocol error: ${String(error)}`);
        assert.equal(error.code, -32602);
        assert.match(error.message, /memo:\/\/missing/);
        return true;
      });
      assert.equal(firstText(await client.callTool({ name: 'echo', arguments: { text: 'still here' } })), 'echo: still here');
    });

    test('subscriptions/listen: the stream hears tools/list_changed when our server registers a tool', T, async () => {
      const { client, recorded } = current();
      const name = `dynamic-${label.startsWith('stdio') ? 'stdio' : 'http'}`;
      const subscription = await client.listen({ toolsListChanged: true });
      try {
        assert.equal(subscription.honoredFilter.toolsListChanged, true, 'our server honoured the filter');
        const before = recorded.changes.length;
        assert.equal(firstText(await client.callTool({ name: 'add-tool', arguments: { name } })), `added ${name}`);
        await until(() => recorded.changes.length > before, 'tools/list_changed on the listen stream', 5000);
        assert.equal(recorded.changes[before]?.method, 'notifications/tools/list_changed');
        assert.equal(typeof recorded.changes[before]?.subscriptionId, 'string', 'tagged with the subscription id');
        const listed = await client.listTools();
        assert.ok(listed.tools.some((tool) => tool.name === name), 'the new tool is listed');
        assert.equal(firstText(await client.callTool({ name, arguments: {} })), `dynamic ${name}`);
      } finally {
        await subscription.close();
      }
    });

    // The SDK clients drop a progress notification that arrives in the same read as the result it belongs to
    // (they settle responses at once but run notification handlers a microtask later, then report "unknown
    // token": typescript-sdk#2580, see specs/support/interop-sdk-client-flow.ts). Our server writes them in
    // order; `settleMs` keeps the result out of the last notification's read.
    test('progress: our tool\'s ctx.progress reaches the SDK\'s onprogress, in order, before the result', T, async () => {
      const { client } = current();
      const progress: Array<{ progress: number; total?: number | undefined; message?: string | undefined }> = [];
      const result = await client.callTool({ name: 'count', arguments: { steps: 3, settleMs: 100 } }, { onprogress: (update) => void progress.push(update) });
      assert.equal(firstText(result), 'counted 3');
      assert.deepEqual(progress, [1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step}` })));
    });

    test('logging: the level a request names in its envelope (no logging/setLevel in 2026) filters what it hears', T, async () => {
      const { client, recorded } = current();
      const before = recorded.logs.length;
      const quiet = await client.callTool({ name: 'log', arguments: {} });
      assert.equal(firstText(quiet), 'logged');
      assert.equal(recorded.logs.length, before, 'a request naming no level hears no log lines');
      const loud = await client.callTool({ name: 'log', arguments: {}, _meta: { 'io.modelcontextprotocol/logLevel': 'warning' } });
      assert.equal(firstText(loud), 'logged');
      assert.deepEqual(recorded.logs.slice(before), [{ level: 'warning', logger: 'interop' }, { level: 'error', logger: 'interop' }]);
    });

    test('cancellation: aborting the SDK call aborts our handler', T, async () => {
      const { client } = current();
      const key = `hang-${label.slice(0, 5)}`;
      const aborter = new AbortController();
      const hung = client.callTool({ name: 'hang', arguments: { key } }, { signal: aborter.signal });
      const state = async (): Promise<string> => firstText(await client.callTool({ name: 'hang-state', arguments: { key } }));
      await until(async () => (await state()) === 'running', 'the handler started', 5000);
      aborter.abort();
      await assert.rejects(hung);
      await until(async () => (await state()) === 'aborted', 'our handler saw the abort', 5000);
    });

    test('resource subscription on a listen stream: resources/updated for the URI asked for', T, async () => {
      const { client, recorded } = current();
      const subscription = await client.listen({ resourceSubscriptions: [NOTE_URI] });
      try {
        assert.deepEqual(subscription.honoredFilter.resourceSubscriptions, [NOTE_URI]);
        const before = recorded.updates.length;
        assert.equal(firstText(await client.callTool({ name: 'touch', arguments: {} })), `touched ${NOTE_URI}`);
        await until(() => recorded.updates.length > before, 'resources/updated on the listen stream', 5000);
        assert.deepEqual(recorded.updates.slice(before), [NOTE_URI]);
      } finally {
        await subscription.close();
      }
    });

    test('the schema oracle found nothing wrong in what our server sent; the SDK reported no errors', T, async () => {
      const { recorded, report } = current();
      const found = await report();
      assert.ok(found.checked > 10, `the oracle checked our messages (${found.checked})`);
      assert.equal(found.violations, '', 'every message our server sent is valid');
      // confirm, summarize, where: one input_required round each, and never a request to the client.
      assert.equal(found.sent.inputRequired, 3, 'each input need was an input_required round');
      assert.deepEqual(found.sent.requests, [], 'our server sent no request to the client in the modern era');
      assert.deepEqual(recorded.errors, []);
    });
  });
}

// --- stdio --------------------------------------------------------------------------------------------------

describeModernFlow('stdio: SDK 2.x client (auto) spawning our serveStdio program', async () => {
  const { client, recorded } = sdk2ModernClient();
  const stderr: string[] = [];
  const transport = new SameProcessStdioClientTransport({ ...fixtureCommand('modern/rxmcp-modern-stdio-server.ts'), stderr: 'pipe' });
  transport.stderr?.on('data', (chunk: Buffer) => void stderr.push(chunk.toString('utf8')));
  const connecting = client.connect(transport, { timeout: PROCESS_MS });
  trackChild(transport.pid, 'rxmcp modern stdio fixture (spawned by SDK 2.x)');
  await connecting;
  const pid = transport.pid;
  return {
    client,
    recorded,
    async report() {
      return JSON.parse(firstText(await client.callTool({ name: 'oracle-report', arguments: {} }))) as OracleReport;
    },
    async close() {
      await client.close();
      await until(() => stderr.join('').includes('rxmcp-modern-stdio-server: stdin closed (orderly)'), 'the fixture saw stdin close', PROCESS_MS);
      await until(() => pid === null || !isRunning(pid), 'the fixture exited', PROCESS_MS);
      assert.match(stderr.join(''), /rxmcp-modern-stdio-server: exit 0/, 'it ended by itself, not by a signal');
    },
  };
});

// --- Streamable HTTP ----------------------------------------------------------------------------------------

describeModernFlow('http: SDK 2.x client (auto) and StreamableHTTPClientTransport against createStreamableHttpServer', async () => {
  const interop = createModernInteropServer();
  const http: StreamableHttpServer = createStreamableHttpServer({ server: interop.acceptor });
  const { url } = await http.listen(0);
  const { client, recorded } = sdk2ModernClient();
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport, { timeout: PROCESS_MS });
  assert.equal(transport.sessionId, undefined, 'the modern era has no HTTP session');
  assert.equal(http.sessionCount, 0, 'and our server opened none');
  return {
    client,
    recorded,
    report: () => Promise.resolve(interop.report()),
    async close() {
      await client.close();
      await http.close();
      await interop.server.close();
    },
  };
});

// --- stdio, the SDK's default transport -------------------------------------------------------------------

test('stdio: the SDK\'s base StdioClientTransport (probe on a disposable sibling process) reaches the modern era too', { timeout: 30_000 }, async (t) => {
  const lifeDir = mkdtempSync(join(tmpdir(), 'rxmcp-modern-'));
  t.after(() => rmSync(lifeDir, { recursive: true, force: true }));
  const lifeLog = join(lifeDir, 'life.log');
  const lives = (): { started: number[]; exited: Map<number, string> } => {
    const lines = existsSync(lifeLog) ? readFileSync(lifeLog, 'utf8').split('\n') : [];
    const started = lines.flatMap((line) => /^start (\d+)$/.exec(line)?.slice(1).map(Number) ?? []);
    const exited = new Map(lines.flatMap((line) => {
      const match = /^exit (\d+) (\S+)$/.exec(line);
      return match === null ? [] : [[Number(match[1]), match[2] as string] as const];
    }));
    return { started, exited };
  };
  const track = (): void => {
    for (const pid of lives().started) trackChild(pid, 'rxmcp modern stdio fixture (base StdioClientTransport)');
  };
  const { client, recorded } = sdk2ModernClient();
  const transport = new StdioClientTransport({ ...fixtureCommand('modern/rxmcp-modern-stdio-server.ts', lifeLog), stderr: 'pipe' });
  let pid: number | null = null;
  try {
    await client.connect(transport, { timeout: PROCESS_MS });
    // The session child is spawned once the era is known, from the sibling's answer; the sibling is reaped by then.
    pid = transport.pid;
    trackChild(pid, 'rxmcp modern stdio fixture (base StdioClientTransport session)');
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(firstText(await client.callTool({ name: 'confirm', arguments: { what: 'the base transport' } })), 'confirmed the base transport: ok=true');
    const { started } = lives();
    assert.equal(started.length, 2, 'two copies of our program: the probe sibling, then the session');
    assert.equal(started[1], pid, 'the session runs in the second one');
    assert.ok(!isRunning(started[0] as number), 'the probe sibling is gone (the SDK reaps it with SIGTERM)');
  } finally {
    track();
    await client.close();
  }
  const session = pid;
  assert.ok(session !== null);
  await until(() => lives().exited.has(session), 'the session process exited', PROCESS_MS);
  assert.equal(lives().exited.get(session), '0', 'the session process ended by itself at stdin EOF');
  assert.deepEqual(recorded.errors, []);
});
