/**
 * The liveness (`/healthz`) and readiness (`/readyz`) probes beside the MCP endpoint, on both adapters with a
 * real HTTP client on 127.0.0.1: on by default, GET and HEAD only, readiness 503 with the reason when the
 * endpoint or the session host is full, while shutting down (liveness stays 200) and when the operator's check
 * says so; never shadowing an MCP path; behind the Host check; authenticated only when asked.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createServer } from '../../../server/create-server.ts';
import { createSessionHost } from '../../../server/session-host.ts';
import { createStreamableHttpServer } from '../../../transports/http/index.ts';
import { type RawReply, RawMcp, asBody, rawRequest } from '../../support/http-raw-client.ts';
import { ADAPTERS, type EndpointOptions, serveThrough } from './adapters.ts';
import { demoServer } from './fixtures.ts';

function probe(url: string, method = 'GET', headers: Record<string, string> = {}): Promise<RawReply> {
  return rawRequest(url, { method, headers }).then(asBody);
}

async function served(adapter: (typeof ADAPTERS)[number], options: EndpointOptions = {}) {
  const demo = demoServer();
  const endpoint = await serveThrough(adapter, demo.server, options);
  return {
    ...demo,
    endpoint,
    async [Symbol.asyncDispose]() {
      await endpoint.close();
      await demo.server.close();
    },
  };
}

for (const adapter of ADAPTERS) {
  describe(`health probes (${adapter} adapter)`, () => {
    test(`${adapter} - on by default: /healthz and /readyz answer 200 with a small JSON body, HEAD without one, other methods 405`, async () => {
      await using it = await served(adapter);
      const live = await probe(`${it.endpoint.origin}/healthz`);
      assert.equal(live.status, 200);
      assert.deepEqual(live.json, { status: 'ok' });
      assert.equal(live.headers['content-type'], 'application/json');
      assert.equal(live.headers['cache-control'], 'no-store');
      const ready = await probe(`${it.endpoint.origin}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.json, { status: 'ready' });

      const head = await probe(`${it.endpoint.origin}/readyz`, 'HEAD');
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
      for (const method of ['POST', 'DELETE', 'OPTIONS']) {
        const refused = await probe(`${it.endpoint.origin}/healthz`, method);
        assert.equal(refused.status, 405, method);
        assert.equal(refused.headers['allow'], 'GET, HEAD');
      }
      // The MCP endpoint beside them is unchanged.
      const mcp = new RawMcp(it.endpoint.url);
      await mcp.initialize();
      mcp.assertClean();
      assert.equal((await probe(`${it.endpoint.origin}/elsewhere`)).status, 404);
    });

    test(`${adapter} - readiness is 503 with the reason while the endpoint holds its maximum of sessions, and 200 once one ends`, async () => {
      await using it = await served(adapter, { maxSessions: 1 });
      const mcp = new RawMcp(it.endpoint.url);
      await mcp.initialize();
      const full = await probe(`${it.endpoint.origin}/readyz`);
      assert.equal(full.status, 503);
      assert.deepEqual(full.json, { status: 'unavailable', reason: 'this server holds its maximum of 1 sessions' });
      assert.equal((await probe(`${it.endpoint.origin}/healthz`)).status, 200, 'alive all the same');
      assert.equal((await mcp.delete()).status, 200);
      assert.equal((await probe(`${it.endpoint.origin}/readyz`)).status, 200);
    });

    test(`${adapter} - readiness follows the session host: 503 with the host's reason when it is full or closed`, async () => {
      const host = createSessionHost(createServer({ name: 'hosted', version: '1' }), { maxSessions: 1 });
      await using endpoint = await serveThrough(adapter, host);
      assert.equal((await probe(`${endpoint.origin}/readyz`)).status, 200);
      const mcp = new RawMcp(endpoint.url);
      await mcp.initialize();
      const full = await probe(`${endpoint.origin}/readyz`);
      assert.equal(full.status, 503);
      assert.match((full.json as { reason: string }).reason, /maximum of 1 sessions/);
      await host.close({ drainMs: 0 });
      const closed = await probe(`${endpoint.origin}/readyz`);
      assert.equal(closed.status, 503);
      assert.match((closed.json as { reason: string }).reason, /shutting down/);
    });

    test(`${adapter} - while the endpoint drains, readiness is 503 (shutting down) and liveness still 200`, async () => {
      await using it = await served(adapter);
      const mcp = new RawMcp(it.endpoint.url);
      await mcp.initialize();
      const running = await mcp.post({ jsonrpc: '2.0', id: mcp.id(), method: 'tools/call', params: { name: 'wait', arguments: { key: 'drain' } } });
      await it.gates.started('drain');
      const closing = it.endpoint.close({ drainMs: 5_000 });
      const ready = await probe(`${it.endpoint.origin}/readyz`);
      assert.equal(ready.status, 503);
      assert.deepEqual(ready.json, { status: 'unavailable', reason: 'the server is shutting down' });
      assert.equal((await probe(`${it.endpoint.origin}/healthz`)).status, 200);
      it.gates.open('drain');
      const answer = await mcp.responseOf(running);
      assert.equal((answer as { result?: unknown }).result !== undefined, true, 'the request in flight was answered');
      await closing;
    });

    test(`${adapter} - the operator's readiness check: its reason gives 503; a check that throws gives 503 without its error`, async () => {
      let down: string | undefined = 'the database is unreachable';
      let fail = false;
      await using it = await served(adapter, {
        health: {
          readiness: async () => {
            if (fail) throw new Error('secret connection string postgres://admin:hunter2@db');
            return down;
          },
        },
      });
      const url = `${it.endpoint.origin}/readyz`;
      assert.deepEqual((await probe(url)).json, { status: 'unavailable', reason: 'the database is unreachable' });
      down = undefined;
      assert.equal((await probe(url)).status, 200);
      fail = true;
      const failed = await probe(url);
      assert.equal(failed.status, 503);
      assert.deepEqual(failed.json, { status: 'unavailable', reason: 'the readiness check failed' });
      assert.doesNotMatch(failed.text, /hunter2/);
      assert.equal((await probe(`${it.endpoint.origin}/healthz`)).status, 200, 'liveness never runs the check');
    });

    test(`${adapter} - paths are configurable or off; probes go through the Host check; authenticate only when asked`, async () => {
      await using custom = await served(adapter, { health: { livenessPath: '/live', readinessPath: false } });
      assert.equal((await probe(`${custom.endpoint.origin}/live`)).status, 200);
      assert.equal((await probe(`${custom.endpoint.origin}/healthz`)).status, 404);
      assert.equal((await probe(`${custom.endpoint.origin}/readyz`)).status, 404);
      await using off = await served(adapter, { health: false });
      assert.equal((await probe(`${off.endpoint.origin}/healthz`)).status, 404);

      const foreign = await probe(`${custom.endpoint.origin}/live`, 'GET', { host: 'evil.example.com' });
      assert.equal(foreign.status, 403, 'DNS rebinding is refused on the probes too');

      const authenticate = (request: { header(name: string): string | undefined }): string => {
        if (request.header('authorization') !== 'Bearer ok') throw new Error('no');
        return 'operator';
      };
      await using open = await served(adapter, { authenticate });
      assert.equal((await probe(`${open.endpoint.origin}/readyz`)).status, 200, 'probes need no credentials by default');
      await using guarded = await served(adapter, { authenticate, health: { authenticate: true } });
      assert.equal((await probe(`${guarded.endpoint.origin}/readyz`)).status, 401);
      assert.equal((await probe(`${guarded.endpoint.origin}/readyz`, 'GET', { authorization: 'Bearer ok' })).status, 200);
    });

    test(`${adapter} - a probe never shadows the MCP endpoint: an MCP path on a default probe path stays the MCP endpoint`, async () => {
      await using onHealthz = await served(adapter, { path: '/healthz' });
      const mcp = new RawMcp(onHealthz.endpoint.url);
      await mcp.initialize();
      mcp.assertClean();
      assert.equal((await probe(onHealthz.endpoint.url)).status, 406, 'GET /healthz is the MCP endpoint (a GET stream needs Accept)');
      assert.equal((await probe(`${onHealthz.endpoint.origin}/readyz`)).status, 200, 'the other probe stays');
    });
  });
}

test('health probes - explicit probe paths on an MCP path, on each other or without a leading slash are refused at construction', () => {
  const { server } = demoServer();
  assert.throws(() => createStreamableHttpServer({ server, health: { livenessPath: '/mcp' } }), /path of the MCP endpoint/);
  assert.throws(() => createStreamableHttpServer({ server, legacySse: true, health: { readinessPath: '/sse' } }), /path of the MCP endpoint/);
  assert.throws(() => createStreamableHttpServer({ server, health: { livenessPath: '/probe', readinessPath: '/probe' } }), /both "\/probe"/);
  assert.throws(() => createStreamableHttpServer({ server, health: { livenessPath: 'healthz' } }), /must start with "\/"/);
});
