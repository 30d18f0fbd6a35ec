/**
 * Identity across NATS through `rxmcp gateway` (a real nats-server): the gateway authenticates HTTP callers and
 * vouches for them to the servers with a signed assertion; the handler's side sees the caller in both eras; a
 * server that requires identity refuses an anonymous caller; a server that trusts another key refuses the
 * gateway's assertions (the HTTP caller hears why); a legacy HTTP session is restored only for its own caller.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import type { Observable } from 'rxjs';
import type { RequestEvent } from '../../../actors/handler-types.ts';
import { createGateway, type Gateway } from '../../../cli/gateway/gateway.ts';
import { createClient } from '../../../client/create-client.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import type { ListeningServer } from '../../../transports/http/index.ts';
import { createStreamableHttpClientTransport } from '../../../transports/http/index.ts';
import { type NatsServing, createIdentitySigner, serveNats } from '../../../transports/nats/index.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { gatewayKeys } from '../../transports/nats/identity-keys.ts';
import { RawMcp } from '../../support/http-raw-client.ts';

/** `Authorization: Bearer <name>` names the caller (the spec's stand-in for a token verifier). */
const authenticate = (request: { header(name: string): string | undefined }): string | undefined => /^Bearer (\w+)$/.exec(request.header('authorization') ?? '')?.[1];

/** An error's words and its cause's (a modern client reports a refused `server/discover` with the refusal as the cause). */
function wordsOf(error: Error): string {
  return error.cause instanceof Error ? `${error.message} / ${error.cause.message}` : error.message;
}

function server(principals: Array<string | undefined>): McpServer {
  const made = createServer({ name: 'gateway-identity', version: '0.0.0' });
  made.use((request, next): Observable<RequestEvent> => {
    principals.push(request.session.principal);
    return next(request);
  });
  made.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: Record<string, unknown>) => ({ content: [{ type: 'text', text: String(args['text']) }] }));
  return made;
}

describe('gateway identity', () => {
  let nats: NatsServerProcess;
  const connections: NatsConnection[] = [];
  const servings: NatsServing[] = [];
  const servers: McpServer[] = [];
  const gateways: Array<{ gateway: Gateway; listening: ListeningServer }> = [];
  const principals: Array<string | undefined> = [];
  const url: Record<'open' | 'strict' | 'foreign' | 'replica', string> = { open: '', strict: '', foreign: '', replica: '' };

  before(async () => {
    nats = await startNatsServer();
    const open = async (): Promise<NatsConnection> => {
      const made = await connect({ servers: nats.url });
      connections.push(made);
      return made;
    };
    const keys = await gatewayKeys('gw');
    const other = await gatewayKeys('gw');
    const serve = async (name: string, identity: Parameters<typeof serveNats>[1]['identity']): Promise<void> => {
      const made = server(principals);
      servers.push(made);
      servings.push(await serveNats(made, { connection: await open(), name, ...(identity === undefined ? {} : { identity }) }));
    };
    await serve('open', { keys: [keys.publicJwk] });
    await serve('strict', { keys: [keys.publicJwk], required: true });
    await serve('foreign', { keys: [other.publicJwk] });
    const signer = createIdentitySigner({ key: keys.privateJwk });
    const front = async (name: string): Promise<string> => {
      const gateway = await createGateway({ connection: await open(), name, identity: signer, http: { authenticate } });
      const listening = await gateway.http.listen(0, '127.0.0.1');
      gateways.push({ gateway, listening });
      return listening.url;
    };
    url.open = await front('open');
    url.strict = await front('strict');
    url.foreign = await front('foreign');
    url.replica = await front('open');
  });

  after(async () => {
    for (const { gateway, listening } of gateways) {
      await listening.close();
      await gateway.close();
    }
    for (const serving of servings) await serving.close('end');
    for (const made of servers) await made.close();
    await Promise.allSettled(connections.map((made) => made.close()));
    await nats.dispose();
  });

  const connectAs = (target: string, era: 'legacy' | 'modern', caller: string | undefined) =>
    createClient({ name: 'c', version: '0', era }).connect(createStreamableHttpClientTransport(target, caller === undefined ? {} : { headers: { authorization: `Bearer ${caller}` } }));

  test('gateway identity - the server sees the HTTP caller in both eras, and an anonymous caller as anonymous', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      principals.length = 0;
      const session = await connectAs(url.open, era, 'alice');
      assert.deepEqual((await session.callTool('echo', { text: era })).content, [{ type: 'text', text: era }]);
      assert.ok(principals.length > 0 && principals.every((principal) => principal === 'alice'), `${era}: ${JSON.stringify(principals)}`);
      await session.close();
      principals.length = 0;
      const anonymous = await connectAs(url.open, era, undefined);
      await anonymous.callTool('echo', { text: 'anon' });
      assert.ok(principals.length > 0 && principals.every((principal) => principal === undefined), `${era} anonymous: ${JSON.stringify(principals)}`);
      await anonymous.close();
    }
    // Ending a legacy HTTP session ends its NATS session too: the close frame carries the caller's identity.
    const serving = servings[0]!;
    for (let waited = 0; serving.counts().sessions > 0; waited += 20) {
      if (waited > 5000) assert.fail(`the NATS sessions did not end: ${serving.counts().sessions} left`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  test('gateway identity - a server that requires identity refuses an anonymous caller and serves an authenticated one', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const refused = await (async () => {
        const session = await connectAs(url.strict, era, undefined);
        await session.callTool('echo', { text: 'x' });
        await session.close();
      })().then(() => undefined, (error: unknown) => error as Error);
      assert.ok(refused !== undefined, `${era}: the anonymous caller was refused`);
      assert.match(wordsOf(refused), /Identity refused: this server requires a caller identity/, era);
      const session = await connectAs(url.strict, era, 'carol');
      assert.deepEqual((await session.callTool('echo', { text: 'ok' })).content, [{ type: 'text', text: 'ok' }]);
      await session.close();
    }
  });

  test('gateway identity - a server that trusts another gateway key refuses this gateway\'s assertions, with the reason', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const refused = await (async () => {
        const session = await connectAs(url.foreign, era, 'alice');
        await session.callTool('echo', { text: 'x' });
        await session.close();
      })().then(() => undefined, (error: unknown) => error as Error);
      assert.ok(refused !== undefined, era);
      assert.match(wordsOf(refused), /Identity refused: the identity assertion's signature does not verify/, era);
    }
  });

  test('gateway identity - a legacy HTTP session is restored on another replica for its own caller only', async () => {
    const mine = new RawMcp(url.open, { headers: { authorization: 'Bearer alice' } });
    await mine.initialize('2025-11-25');
    const onReplica = new RawMcp(url.replica, { headers: { authorization: 'Bearer alice' } });
    onReplica.sessionId = mine.sessionId;
    onReplica.revision = mine.revision;
    const { response } = await onReplica.call('tools/call', { name: 'echo', arguments: { text: 'via replica' } });
    assert.deepEqual((response['result'] as { content: unknown }).content, [{ type: 'text', text: 'via replica' }]);
    const thief = new RawMcp(url.replica, { headers: { authorization: 'Bearer mallory' } });
    thief.sessionId = mine.sessionId;
    thief.revision = mine.revision;
    const stolen = await thief.post({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'echo', arguments: { text: 'stolen' } } });
    assert.equal(stolen.status, 404, 'another caller finds no such session');
  });
});
