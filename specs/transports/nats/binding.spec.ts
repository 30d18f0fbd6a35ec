/**
 * The NATS binding's wire rules, against a real nats-server: subjects and mirrored headers checked against the
 * body, refusals for malformed and oversized messages, msgpack when both sides read it, claim-check, keepalives,
 * cancellation (control subject and a vanished inbox), and never a hang when nobody serves.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Msg, headers as natsHeaders } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { jsonCodec } from '../../../core/codecs/json.ts';
import { msgpackCodec } from '../../../core/codecs/msgpack.ts';
import { ErrorCode } from '../../../core/error-codes.ts';
import { LocalError } from '../../../core/errors.ts';
const MODERN_REVISION = '2026-07-28';
import { createNatsClientTransport } from '../../../transports/nats/index.ts';
import { eventually, within } from '../../support/harness.ts';
import { type NatsFixture, SERVER_NAME, demoTools, natsFixture } from './nats-fixture.ts';

const WAIT = 5000;
const decoder = new TextDecoder();

function modernEnvelope(): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}

/** Sends one raw NATS request and returns the decoded JSON answer. */
async function rawCall(fixture: NatsFixture, subject: string, body: Uint8Array, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const connection = await fixture.connection();
  const made = natsHeaders();
  for (const [key, value] of Object.entries(headers)) made.set(key, value);
  const answer: Msg = await connection.request(subject, body, { timeout: WAIT, headers: made });
  return JSON.parse(decoder.decode(answer.data)) as Record<string, unknown>;
}

function errorCodeOf(answer: Record<string, unknown>): number | undefined {
  const error = answer['error'] as { code?: number } | undefined;
  return error?.code;
}

describe('nats binding', () => {
  let fixture: NatsFixture;
  const seen = { aborted: 0 };
  before(async () => {
    fixture = await natsFixture({ maxPayload: 64 * 1024 });
    const { server } = await fixture.serve({ bare: true, nats: { keepaliveMs: 100, claimCheck: true } });
    demoTools(server, seen);
  });
  after(() => fixture[Symbol.asyncDispose]());

  test('nats binding - a legacy client and a modern client each call a tool', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const { session } = await fixture.client({ client: { era } });
      const result = await within(session.callTool('echo', { text: `hi ${era}` }), WAIT);
      assert.deepEqual(result.content, [{ type: 'text', text: `hi ${era}` }]);
    }
  });

  test('nats binding - the era-detecting client speaks modern to a dual-era server', async () => {
    const { session, transport } = await fixture.client({ client: { era: 'auto' } });
    await within(session.callTool('echo', { text: 'x' }), WAIT);
    assert.equal(transport.sessionId, undefined, 'no legacy session was opened');
  });

  test('nats binding - a subject naming another method than the body is a header mismatch', async () => {
    const body = jsonCodec.encode({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernEnvelope() } });
    const answer = await rawCall(fixture, `mcp.${SERVER_NAME}.call.prompts.list`, body, { 'Mcp-Method': 'tools/list', 'MCP-Protocol-Version': MODERN_REVISION });
    assert.equal(errorCodeOf(answer), ErrorCode.HeaderMismatch);
    assert.equal(answer['id'], 1);
  });

  test('nats binding - an Mcp-Method or Mcp-Name header that differs from the body is refused with -32020', async () => {
    const list = jsonCodec.encode({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: modernEnvelope() } });
    const wrongMethod = await rawCall(fixture, `mcp.${SERVER_NAME}.call.tools.list`, list, { 'Mcp-Method': 'prompts/list', 'MCP-Protocol-Version': MODERN_REVISION });
    assert.equal(errorCodeOf(wrongMethod), ErrorCode.HeaderMismatch);
    const call = jsonCodec.encode({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' }, _meta: modernEnvelope() } });
    const wrongName = await rawCall(fixture, `mcp.${SERVER_NAME}.call.tools.call`, call, { 'Mcp-Method': 'tools/call', 'Mcp-Name': 'slow', 'MCP-Protocol-Version': MODERN_REVISION });
    assert.equal(errorCodeOf(wrongName), ErrorCode.HeaderMismatch);
    assert.match(String((wrongName['error'] as { message: string }).message), /Mcp-Name/);
    const right = await rawCall(fixture, `mcp.${SERVER_NAME}.call.tools.call`, call, { 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo', 'MCP-Protocol-Version': MODERN_REVISION });
    assert.deepEqual((right['result'] as { content: unknown }).content, [{ type: 'text', text: 'a' }]);
  });

  test('nats binding - malformed JSON is a parse error and a batch is an invalid request; the server goes on', async () => {
    const parse = await rawCall(fixture, `mcp.${SERVER_NAME}.call.tools.list`, new TextEncoder().encode('{"jsonrpc":'), {});
    assert.equal(errorCodeOf(parse), ErrorCode.ParseError);
    const batch = await rawCall(fixture, `mcp.${SERVER_NAME}.call.tools.list`, jsonCodec.encode([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]), {});
    assert.equal(errorCodeOf(batch), ErrorCode.InvalidRequest);
    const { session } = await fixture.client({ client: { era: 'modern' } });
    assert.equal((await within(session.callTool('echo', { text: 'still here' }), WAIT)).isError, undefined);
  });

  test('nats binding - a request larger than max_payload fails before it is sent, with the sizes named', async () => {
    const { session } = await fixture.client({ client: { era: 'modern' } });
    await assert.rejects(within(session.callTool('echo', { text: 'y'.repeat(70 * 1024) }), WAIT), (error: unknown) => {
      assert.ok(error instanceof LocalError && error.code === 'FrameTooLarge', String(error));
      assert.match(error.message, /max_payload of 65536/);
      return true;
    });
  });

  test('nats binding - an answer larger than max_payload is an internal error naming the sizes without claim-check', async () => {
    const { session } = await fixture.client({ client: { era: 'modern' } });
    await assert.rejects(within(session.callTool('big', { bytes: 100 * 1024 }), WAIT), (error: unknown) => {
      assert.equal((error as { code?: number }).code, ErrorCode.InternalError);
      assert.match(String((error as Error).message), /max_payload of 65536/);
      return true;
    });
  });

  test('nats binding - with claim-check on both sides a large answer arrives whole, in both eras', async () => {
    for (const era of ['modern', 'legacy'] as const) {
      const { session } = await fixture.client({ client: { era }, transport: { claimCheck: true } });
      const result = await within(session.callTool('big', { bytes: 300 * 1024 }), WAIT);
      const [content] = result.content as unknown as Array<{ text: string }>;
      assert.equal(content?.text.length, 300 * 1024);
    }
  });

  test('nats binding - msgpack bodies once both sides announced them', async () => {
    const watcher = await fixture.connection();
    const contentTypes: string[] = [];
    const spy = watcher.subscribe(`mcp.${SERVER_NAME}.call.>`, { callback: (_error, msg) => void contentTypes.push(msg.headers?.get('Content-Type') ?? '') });
    await watcher.flush();
    const { session } = await fixture.client({ client: { era: 'modern' }, transport: { encoding: 'msgpack' } });
    await within(session.callTool('echo', { text: 'one' }), WAIT);
    const second = await within(session.callTool('echo', { text: 'two' }), WAIT);
    assert.deepEqual(second.content, [{ type: 'text', text: 'two' }]);
    await eventually(() => contentTypes.length >= 3, WAIT, 'the spy to see the requests');
    spy.unsubscribe();
    // server/discover and the first call go as JSON; after the first msgpack answer, msgpack.
    assert.equal(contentTypes[0], '');
    assert.equal(contentTypes.at(-1), msgpackCodec.contentType);
  });

  test('nats binding - keepalives carry a request longer than the client silence limit', async () => {
    const { session } = await fixture.client({ client: { era: 'modern' }, transport: { silenceMs: 400 } });
    const result = await within(session.callTool('slow', { ms: 1200 }), WAIT);
    assert.deepEqual(result.content, [{ type: 'text', text: 'waited 1200' }]);
  });

  test('nats binding - cancelling a call aborts the handler, in both eras', async () => {
    for (const era of ['modern', 'legacy'] as const) {
      const before = seen.aborted;
      const { session } = await fixture.client({ client: { era } });
      const controller = new AbortController();
      const call = session.callTool('slow', { ms: 10_000 }, { signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 100));
      controller.abort();
      await assert.rejects(within(call, WAIT));
      await eventually(() => seen.aborted > before, WAIT, `the ${era} handler to see the abort`);
    }
  });

  test('nats binding - a client whose inbox vanished mid-call gets its handler aborted (keepalive finds no responders)', async () => {
    const before = seen.aborted;
    const connection = await fixture.connection();
    const transport = createNatsClientTransport({ connection, name: SERVER_NAME });
    const { createClient } = await import('../../../client/create-client.ts');
    const session = await createClient({ name: 'vanishing', version: '0', era: 'modern' }).connect(transport);
    void session.callTool('slow', { ms: 10_000 }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The whole NATS connection goes: no cancel is sent, the inbox just disappears.
    await connection.close();
    await eventually(() => seen.aborted > before, WAIT, 'the handler to be aborted');
  });

  test('nats binding - a request nobody serves fails at once with a clear error', async () => {
    const connection = await fixture.connection();
    const transport = createNatsClientTransport({ connection, name: 'nobody-serves-this' });
    const { createClient } = await import('../../../client/create-client.ts');
    const started = Date.now();
    await assert.rejects(within(createClient({ name: 'c', version: '0', era: 'modern' }).connect(transport), WAIT), (error: unknown) => {
      assert.match(String((error as Error).message), /No MCP server answers on NATS for "nobody-serves-this"/);
      return true;
    });
    assert.ok(Date.now() - started < 2000, 'no waiting for a timeout');
  });
});

describe('nats binding - eras', () => {
  let fixture: NatsFixture;
  before(async () => {
    fixture = await natsFixture();
  });
  after(() => fixture[Symbol.asyncDispose]());

  test('nats binding - an era-detecting client falls back to initialize on a legacy-only server', async () => {
    await fixture.serve({ server: { eras: 'legacy' }, nats: { name: 'legacy-only' } });
    const connection = await fixture.connection();
    const transport = createNatsClientTransport({ connection, name: 'legacy-only' });
    const { createClient } = await import('../../../client/create-client.ts');
    const session = await within(createClient({ name: 'c', version: '0', era: 'auto' }).connect(transport), WAIT);
    try {
      assert.ok(transport.sessionId !== undefined, 'a legacy session was opened');
      assert.deepEqual((await within(session.callTool('echo', { text: 'old' }), WAIT)).content, [{ type: 'text', text: 'old' }]);
    } finally {
      await session.close();
    }
  });

  test('nats binding - initialize on a modern-only server is refused with the supported versions', async () => {
    await fixture.serve({ server: { eras: 'modern' }, nats: { name: 'modern-only' } });
    const body = jsonCodec.encode({ jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    const answer = await rawCall(fixture, 'mcp.modern-only.call.initialize', body, { 'Mcp-Method': 'initialize', 'Mcp-Client-Inbox': '_INBOX.raw.s' });
    assert.equal(errorCodeOf(answer), ErrorCode.MethodNotFound);
    assert.deepEqual((answer['error'] as { data?: { supported?: unknown } }).data?.supported, [MODERN_REVISION]);
  });

  test('nats binding - a legacy session ends when its client closes, and its record goes', async () => {
    const { serving } = await fixture.serve({ nats: { name: 'closing' } });
    const connection = await fixture.connection();
    const transport = createNatsClientTransport({ connection, name: 'closing' });
    const { createClient } = await import('../../../client/create-client.ts');
    const session = await within(createClient({ name: 'c', version: '0', era: 'legacy' }).connect(transport), WAIT);
    assert.equal(serving.counts().sessions, 1);
    const sessionId = transport.sessionId as string;
    await session.close();
    await eventually(() => serving.counts().sessions === 0, WAIT, 'the session to end on the server');
    const kv = await new Kvm(connection).create('mcp_sessions_closing');
    const entry = await kv.get(sessionId);
    assert.ok(entry === null || entry.operation !== 'PUT', 'the session record was deleted');
  });
});
