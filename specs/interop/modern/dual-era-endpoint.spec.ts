/**
 * Interop, both eras on one endpoint: our dual-era server (rxmcp-modern-server.ts) behind ONE
 * createStreamableHttpServer endpoint, used at the same time by
 *   - the official SDK 1.x client (@modelcontextprotocol/sdk, 2025 era: initialize, Mcp-Session-Id, GET stream),
 *   - the official SDK 2.x client in the modern era (versionNegotiation auto: server/discover, per-request
 *     envelope, no session).
 * Both call the same tools, concurrently; the same tool code elicits through a server-to-client request on the
 * legacy session and through an `input_required` round for the modern client; one tool registration is
 * announced to both (a legacy notification on the session, a listen stream notification in the modern era).
 * The schema oracle checks everything our server sent, each message against its own era's schema.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport as Sdk2HttpTransport } from '@modelcontextprotocol/client';
import { type StreamableHttpServer, createStreamableHttpServer } from '../../../transports/http/index.ts';
import { until } from '../../support/interop-processes.ts';
import { type ModernInteropServer, createModernInteropServer } from './rxmcp-modern-server.ts';
import { SDK2_CLIENT_NAME, firstText, sdk2ModernClient } from './sdk2-modern-client.ts';

const T = { timeout: 15_000 };
const SDK1_CLIENT_NAME = 'sdk1-legacy-client';
const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';

let interop: ModernInteropServer;
let http: StreamableHttpServer;
let url: string;

before(async () => {
  interop = createModernInteropServer();
  http = createStreamableHttpServer({ server: interop.acceptor });
  url = (await http.listen(0)).url;
});

after(async () => {
  await http.close();
  await interop.server.close();
});

interface Sdk1Recorded {
  readonly elicitations: string[];
  readonly toolChanges: number[];
  readonly errors: string[];
}

function sdk1Client(): { client: Sdk1Client; recorded: Sdk1Recorded } {
  const recorded: Sdk1Recorded = { elicitations: [], toolChanges: [], errors: [] };
  const client = new Sdk1Client({ name: SDK1_CLIENT_NAME, version: '1.32.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    recorded.elicitations.push(request.params.message);
    return { action: 'accept', content: { ok: false } };
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void recorded.toolChanges.push(Date.now()));
  client.onerror = (error) => void recorded.errors.push(error.message);
  return { client, recorded };
}

test('one endpoint, two eras: an SDK 1.x legacy client and an SDK 2.x modern client call the same tools', T, async () => {
  const legacy = sdk1Client();
  const legacyTransport = new Sdk1HttpTransport(new URL(url));
  const modern = sdk2ModernClient();
  const modernTransport = new Sdk2HttpTransport(new URL(url));
  await Promise.all([legacy.client.connect(legacyTransport, { timeout: 10_000 }), modern.client.connect(modernTransport, { timeout: 10_000 })]);
  try {
    // Each client is in its own era on the same URL; only the legacy one holds a session.
    assert.equal(legacyTransport.protocolVersion, LEGACY, 'the 1.x client negotiated 2025-11-25 with initialize');
    assert.match(legacyTransport.sessionId ?? '', /\S/, 'and was given a session');
    assert.equal(modern.client.getProtocolEra(), 'modern');
    assert.equal(modern.client.getNegotiatedProtocolVersion(), MODERN);
    assert.equal(modernTransport.sessionId, undefined);
    assert.equal(http.sessionCount, 1, 'one HTTP session: the legacy client');
    assert.equal(legacy.client.getServerVersion()?.name, modern.client.getServerVersion()?.name, 'the same server');

    // The same tools, at the same time, each answered in its caller's era.
    const [legacyWho, modernWho, legacyEcho, modernEcho] = await Promise.all([
      legacy.client.callTool({ name: 'whoami', arguments: {} }),
      modern.client.callTool({ name: 'whoami', arguments: {} }),
      legacy.client.callTool({ name: 'echo', arguments: { text: 'from 1.x' } }),
      modern.client.callTool({ name: 'echo', arguments: { text: 'from 2.x' } }),
    ]);
    assert.equal(firstText(legacyWho), `${LEGACY} ${SDK1_CLIENT_NAME}`);
    assert.equal(firstText(modernWho), `${MODERN} ${SDK2_CLIENT_NAME}`);
    assert.equal(firstText(legacyEcho), 'echo: from 1.x');
    assert.equal(firstText(modernEcho), 'echo: from 2.x');

    // One tool, two ways of asking the user: a server request on the legacy session, an input round in 2026.
    const [legacyConfirm, modernConfirm] = await Promise.all([
      legacy.client.callTool({ name: 'confirm', arguments: { what: 'legacy' } }),
      modern.client.callTool({ name: 'confirm', arguments: { what: 'modern' } }),
    ]);
    assert.equal(firstText(legacyConfirm), 'confirmed legacy: ok=false');
    assert.equal(firstText(modernConfirm), 'confirmed modern: ok=true');
    assert.deepEqual(legacy.recorded.elicitations, ['Confirm legacy?']);
    assert.deepEqual(modern.recorded.elicitations.map((asked) => asked.message), ['Confirm modern?']);
    const sent = interop.report().sent;
    assert.deepEqual(sent.requests, ['elicitation/create'], 'the legacy session got a server request');
    assert.equal(sent.inputRequired, 1, 'the modern client got an input_required round');

    // A tool registered once is announced to both: on the legacy session and on the modern listen stream.
    const subscription = await modern.client.listen({ toolsListChanged: true });
    try {
      assert.equal(firstText(await modern.client.callTool({ name: 'add-tool', arguments: { name: 'shared' } })), 'added shared');
      await until(() => modern.recorded.changes.length > 0, 'the modern listen stream heard tools/list_changed', 5000);
      await until(() => legacy.recorded.toolChanges.length > 0, 'the legacy session heard tools/list_changed', 5000);
      assert.equal(firstText(await legacy.client.callTool({ name: 'shared', arguments: {} })), 'dynamic shared');
      assert.equal(firstText(await modern.client.callTool({ name: 'shared', arguments: {} })), 'dynamic shared');
    } finally {
      await subscription.close();
    }

    const report = interop.report();
    assert.ok(report.checked > 15, `the oracle checked our messages (${report.checked})`);
    assert.equal(report.violations, '', 'every message our server sent is valid in its era');
    assert.equal(report.received.filter((method) => method === 'initialize').length, 1, 'one handshake: the legacy client');
    assert.equal(report.received.filter((method) => method === 'server/discover').length, 1, 'one discovery: the modern client');
    assert.deepEqual(legacy.recorded.errors, []);
    assert.deepEqual(modern.recorded.errors, []);
  } finally {
    await legacyTransport.terminateSession().catch(() => undefined);
    await Promise.all([legacy.client.close(), modern.client.close()]);
  }
  assert.equal(http.sessionCount, 0, 'DELETE ended the legacy session');
});
