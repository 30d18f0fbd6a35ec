/**
 * Identity across NATS (docs/nats-binding.md), against a real nats-server: a caller's identity, signed by a
 * gateway key, reaches the server's transport (`origin.auth`, the session's principal) in both eras; assertions
 * that are tampered with, expired, signed by a foreign key, addressed to another service, forged or missing
 * where required are refused with -32041 and never served as anonymous; a legacy session stays its caller's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Msg, type NatsConnection, connect, headers as natsHeaders } from '@nats-io/transport-node';
import type { Observable } from 'rxjs';
import type { RequestEvent } from '../../../actors/handler-types.ts';
import { createClient } from '../../../client/create-client.ts';
import type { AuthInfo } from '../../../core/auth.ts';
import { ErrorCode } from '../../../core/error-codes.ts';
import type { FrameOrigin, SessionAcceptorPort, Transport } from '../../../core/transport.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import { type NatsServing, createIdentitySigner, createNatsClientTransport, serveNats } from '../../../transports/nats/index.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { type GatewayKeys, gatewayKeys } from './identity-keys.ts';

const WAIT = 5000;
const NAME = 'ident';
const STRICT = 'ident-strict';
const decoder = new TextDecoder();
const encoder = new TextEncoder();

const alice: AuthInfo = {
  principal: 'https://as.example|alice',
  subject: 'alice',
  clientId: 'app-1',
  issuer: 'https://as.example',
  scopes: ['files:read', 'files:write'],
  expiresAt: Date.now() + 3_600_000,
  claims: { tenant: 'acme', secret_note: 'never crosses' },
};
const bob: AuthInfo = { principal: 'bob', scopes: [], claims: {} };

/** What the server's side saw: the principal interceptors see, and the AuthInfo frames and transports carry. */
interface Seen {
  readonly principals: Array<string | undefined>;
  readonly origins: FrameOrigin[];
  readonly transports: Transport[];
}

/** The server, with an acceptor that notes the transports it is given and the origins of their frames. */
function observed(server: McpServer, seen: Seen): SessionAcceptorPort {
  server.use((request, next): Observable<RequestEvent> => {
    seen.principals.push(request.session.principal);
    return next(request);
  });
  return {
    eras: server.eras,
    ...(server.changes === undefined ? {} : { changes: server.changes }),
    accept(transport, options) {
      seen.transports.push(transport);
      // A second reader of the frames (the transport's Subject multicasts): only notes origins.
      transport.incoming$.subscribe((frame) => {
        if (frame.type === 'message' && frame.origin !== undefined) seen.origins.push(frame.origin);
      });
      return server.accept(transport, options);
    },
  };
}

function whoServer(): McpServer {
  const server = createServer({ name: 'ident-spec', version: '0.0.0' });
  server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: Record<string, unknown>) => ({ content: [{ type: 'text', text: String(args['text']) }] }));
  return server;
}

function codeOf(answer: Record<string, unknown>): number | undefined {
  return (answer['error'] as { code?: number } | undefined)?.code;
}

function messageOf(answer: Record<string, unknown>): string {
  return String((answer['error'] as { message?: string } | undefined)?.message);
}

describe('nats identity', () => {
  let nats: NatsServerProcess;
  let connection: NatsConnection;
  let keys: GatewayKeys;
  let foreign: GatewayKeys;
  const servings: NatsServing[] = [];
  const servers: McpServer[] = [];
  const seen: Seen = { principals: [], origins: [], transports: [] };
  /** How far the server's clock runs ahead of the real one. */
  let serverSkewMs = 0;

  before(async () => {
    nats = await startNatsServer();
    connection = await connect({ servers: nats.url });
    keys = await gatewayKeys('gw-1');
    foreign = await gatewayKeys('gw-1');
    const server = whoServer();
    servers.push(server);
    servings.push(await serveNats(observed(server, seen), { connection, name: NAME, identity: { keys: { keys: [keys.publicJwk] }, issuers: 'rxmcp-gateway', now: () => Date.now() + serverSkewMs } }));
    const strict = whoServer();
    servers.push(strict);
    servings.push(await serveNats(strict, { connection, name: STRICT, identity: { keys: [keys.publicJwk], required: true } }));
  });

  after(async () => {
    for (const serving of servings) await serving.close('end');
    for (const server of servers) await server.close();
    await connection.close();
    await nats.dispose();
  });

  const signer = (overrides: Partial<Parameters<typeof createIdentitySigner>[0]> = {}) => createIdentitySigner({ key: keys.privateJwk, forwardClaims: ['tenant'], ...overrides });

  /** One raw request on a subject, with headers; the decoded answer. */
  async function raw(subject: string, body: Record<string, unknown>, headers: Record<string, string>): Promise<Record<string, unknown>> {
    const made = natsHeaders();
    for (const [key, value] of Object.entries(headers)) made.set(key, value);
    const answer: Msg = await connection.request(subject, encoder.encode(JSON.stringify(body)), { timeout: WAIT, headers: made });
    return JSON.parse(decoder.decode(answer.data)) as Record<string, unknown>;
  }

  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
  const initializeHeaders = (assertion?: string): Record<string, string> => ({
    'Mcp-Method': 'initialize',
    'Mcp-Client-Inbox': `_INBOX.raw${Math.random().toString(36).slice(2)}`,
    ...(assertion === undefined ? {} : { 'Mcp-Identity': assertion }),
  });

  test('nats identity - the caller crosses in both eras: its principal, scopes, client, issuer, expiry and the forwarded claims only', async () => {
    const assertion = await signer().assertionFor(alice, `mcp.${NAME}`);
    for (const era of ['legacy', 'modern'] as const) {
      seen.principals.length = 0;
      seen.origins.length = 0;
      seen.transports.length = 0;
      const session = await createClient({ name: 'c', version: '0', era }).connect(createNatsClientTransport({ connection, name: NAME, identity: () => assertion }));
      const result = await session.callTool('echo', { text: era });
      assert.deepEqual(result.content, [{ type: 'text', text: era }]);
      assert.ok(seen.principals.includes(alice.principal), `${era}: interceptors see the principal (saw ${JSON.stringify(seen.principals)})`);
      const origin = seen.origins.at(-1);
      assert.equal(origin?.principal, alice.principal);
      assert.deepEqual(origin?.auth, {
        principal: alice.principal,
        subject: 'alice',
        clientId: 'app-1',
        issuer: 'https://as.example',
        scopes: ['files:read', 'files:write'],
        expiresAt: Math.floor((alice.expiresAt as number) / 1000) * 1000,
        claims: { tenant: 'acme' },
      }, `${era}: the AuthInfo, with only the claims the gateway forwards`);
      const transport = seen.transports.at(-1);
      assert.equal(transport?.principal, alice.principal, `${era}: the connection belongs to the caller`);
      assert.equal(transport?.auth?.clientId, 'app-1');
      await session.close();
    }
  });

  test('nats identity - without an assertion a caller is anonymous, or refused where identity is required', async () => {
    seen.principals.length = 0;
    const session = await createClient({ name: 'c', version: '0', era: 'modern' }).connect(createNatsClientTransport({ connection, name: NAME }));
    await session.callTool('echo', { text: 'anon' });
    assert.ok(seen.principals.length > 0 && seen.principals.every((principal) => principal === undefined), JSON.stringify(seen.principals));
    await session.close();
    const refused = await raw(`mcp.${STRICT}.call.initialize`, initialize, initializeHeaders());
    assert.equal(codeOf(refused), ErrorCode.IdentityRefused);
    assert.match(messageOf(refused), /requires a caller identity/);
    const accepted = await raw(`mcp.${STRICT}.call.initialize`, initialize, initializeHeaders(await signer().assertionFor(bob, `mcp.${STRICT}`)));
    assert.ok('result' in accepted, JSON.stringify(accepted));
  });

  test('nats identity - tampered, expired, foreign-key, wrong-audience, wrong-issuer and forged assertions are refused, never served as anonymous', async () => {
    const good = await signer().assertionFor(bob, `mcp.${NAME}`);
    const [header, payload, signature] = good.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'admin' })).toString('base64url')}.${signature}`;
    const past = Date.now() - 3_600_000;
    const expired = await signer({ now: () => past }).assertionFor(bob, `mcp.${NAME}`);
    const foreignKey = await createIdentitySigner({ key: foreign.privateJwk }).assertionFor(bob, `mcp.${NAME}`);
    const otherService = await signer().assertionFor(bob, `mcp.${STRICT}`);
    const otherIssuer = await signer({ issuer: 'someone-else' }).assertionFor(bob, `mcp.${NAME}`);
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'mcp-identity+jwt' })).toString('base64url')}.${payload}.`;
    const cases: Array<[string, string, RegExp]> = [
      ['tampered', tampered, /signature does not verify/],
      ['expired', expired, /expired/],
      ['foreign key', foreignKey, /signature does not verify|does not trust/],
      ['wrong audience', otherService, /addressed to another service/],
      ['wrong issuer', otherIssuer, /gateway this server does not trust/],
      ['unsigned', unsigned, /algorithm|malformed/],
      ['garbage', 'not-a-jws', /malformed/],
    ];
    for (const [label, assertion, reason] of cases) {
      seen.transports.length = 0;
      const answer = await raw(`mcp.${NAME}.call.initialize`, initialize, initializeHeaders(assertion));
      assert.equal(codeOf(answer), ErrorCode.IdentityRefused, `${label}: ${JSON.stringify(answer)}`);
      assert.match(messageOf(answer), reason, label);
      assert.equal(seen.transports.length, 0, `${label}: no session was opened`);
    }
    // A modern request with a forged assertion, straight onto the call subject, is refused the same way.
    const modern = await raw(`mcp.${NAME}.call.tools.list`, {
      jsonrpc: '2.0', id: 7, method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' }, 'io.modelcontextprotocol/clientCapabilities': {} } },
    }, { 'Mcp-Method': 'tools/list', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Lane': 'lane-x', 'Mcp-Identity': tampered });
    assert.equal(codeOf(modern), ErrorCode.IdentityRefused);
    assert.equal(modern['id'], 7);
  });

  test('nats identity - a legacy session is its caller\'s: messages on its subject without the caller\'s identity are refused', async () => {
    const aliceAssertion = await signer().assertionFor(alice, `mcp.${NAME}`);
    const bobAssertion = await signer().assertionFor(bob, `mcp.${NAME}`);
    const transport = createNatsClientTransport({ connection, name: NAME, identity: () => aliceAssertion });
    const session = await createClient({ name: 'c', version: '0', era: 'legacy' }).connect(transport);
    const sessionId = transport.sessionId;
    assert.ok(sessionId !== undefined);
    const subject = `mcp.${NAME}.s.${sessionId}`;
    const call = { jsonrpc: '2.0', id: 'x1', method: 'tools/call', params: { name: 'echo', arguments: { text: 'hijack' } } };
    const withNone = await raw(subject, call, { 'Mcp-Method': 'tools/call', 'Mcp-Session-Id': sessionId });
    assert.equal(codeOf(withNone), ErrorCode.IdentityRefused);
    assert.match(messageOf(withNone), /names none/);
    const asBob = await raw(subject, call, { 'Mcp-Method': 'tools/call', 'Mcp-Session-Id': sessionId, 'Mcp-Identity': bobAssertion });
    assert.match(messageOf(asBob), /belongs to another caller/);
    // A close frame of someone else ends nothing: the session still serves its caller.
    const close = natsHeaders();
    close.set('Mcp-Frame', 'close');
    close.set('Mcp-Identity', bobAssertion);
    connection.publish(subject, new Uint8Array(0), { headers: close });
    await connection.flush();
    const result = await session.callTool('echo', { text: 'still mine' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'still mine' }]);
    await session.close();
  });

  test('nats identity - a verified assertion is remembered: its expiry still counts', async () => {
    const short = await createIdentitySigner({ key: keys.privateJwk, ttlSeconds: 2 }).assertionFor(bob, `mcp.${NAME}`);
    const first = await raw(`mcp.${NAME}.call.initialize`, initialize, initializeHeaders(short));
    assert.ok('result' in first);
    // Past its 2 s lifetime and the 5 s of skew the server allows.
    serverSkewMs = 7_500;
    try {
      const again = await raw(`mcp.${NAME}.call.initialize`, initialize, initializeHeaders(short));
      assert.equal(codeOf(again), ErrorCode.IdentityRefused);
      assert.match(messageOf(again), /expired/);
    } finally {
      serverSkewMs = 0;
    }
  });

  test('nats identity - a legacy session taken over by another process stays its caller\'s', async () => {
    const name = 'ident-takeover';
    const aliceAssertion = await signer().assertionFor(alice, `mcp.${name}`);
    const bobAssertion = await signer().assertionFor(bob, `mcp.${name}`);
    const first = whoServer();
    const second = whoServer();
    const firstConnection = await connect({ servers: nats.url });
    const secondConnection = await connect({ servers: nats.url });
    const identity = { keys: [keys.publicJwk] };
    let firstServing: NatsServing | undefined = await serveNats(first, { connection: firstConnection, name, identity });
    const transport = createNatsClientTransport({ connection, name, identity: () => aliceAssertion });
    let secondServing: NatsServing | undefined;
    try {
      const session = await createClient({ name: 'c', version: '0', era: 'legacy' }).connect(transport);
      const sessionId = transport.sessionId;
      assert.ok(sessionId !== undefined);
      // The owner hands its sessions over (a rolling restart); another process takes this one at the next request.
      secondServing = await serveNats(second, { connection: secondConnection, name, identity });
      await firstServing.close('handover');
      firstServing = undefined;
      const call = { jsonrpc: '2.0', id: 'b1', method: 'tools/call', params: { name: 'echo', arguments: { text: 'adopted by bob?' } } };
      const asBob = await raw(`mcp.${name}.adopt`, call, { 'Mcp-Method': 'tools/call', 'Mcp-Session-Id': sessionId, 'Mcp-Identity': bobAssertion });
      assert.match(messageOf(asBob), /Session not found/, 'another caller cannot adopt the session');
      const result = await session.callTool('echo', { text: 'adopted' });
      assert.deepEqual(result.content, [{ type: 'text', text: 'adopted' }]);
      assert.equal(secondServing.counts().sessions, 1, 'the second process serves it now');
      await session.close();
    } finally {
      await firstServing?.close('end');
      await secondServing?.close('end');
      await first.close();
      await second.close();
      await firstConnection.close();
      await secondConnection.close();
    }
  });
});
