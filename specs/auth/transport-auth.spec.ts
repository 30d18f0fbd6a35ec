/**
 * The HTTP client transports' `auth` option with a hand-made HttpClientAuth (no OAuth): headers on every request,
 * a 401 put to `challenged` and the request sent again, the bound on retries, the 403 rules, `observe` on every
 * response, on node:http and fetch, over Streamable HTTP and the HTTP+SSE fallback. Real sockets on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import { isLocalError } from '../../core/errors.ts';
import type { AuthResponse, HttpClientAuth } from '../../transports/http/client/auth-port.ts';
import { createFetchHttpClientTransport, createStreamableHttpClientTransport } from '../../transports/http/client/index.ts';
import { type MockServer, type ReceivedRequest, closeAllMockServers, startMockServer } from '../support/http-mock-server.ts';

after(closeAllMockServers);

/** An auth that holds token `t<n>` after n challenges; the server accepts only `accepted`. */
function countingAuth(options: { readonly cure?: boolean } = {}): HttpClientAuth & { challenges: AuthResponse[]; observed: number[]; token: number } {
  const auth = {
    challenges: [] as AuthResponse[],
    observed: [] as number[],
    token: 0,
    headersFor: () => Promise.resolve(auth.token === 0 ? {} : { authorization: `Bearer t${auth.token}` }),
    challenged: (response: AuthResponse) => {
      auth.challenges.push(response);
      if (options.cure === false) return Promise.resolve(false);
      auth.token += 1;
      return Promise.resolve(true);
    },
    observe: (response: AuthResponse) => {
      auth.observed.push(response.status);
    },
  };
  return auth;
}

function guarded(accepted: string, options: { readonly legacy?: boolean; readonly forbid?: boolean } = {}): Promise<MockServer> {
  return startMockServer({
    ...(options.legacy === true ? { legacy: true } : {}),
    tools: { echo: (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }) },
    intercept: (request: ReceivedRequest, response) => {
      if (request.headers['authorization'] === `Bearer ${accepted}`) return false;
      if (options.forbid === true && request.headers['authorization'] !== undefined) {
        response.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden');
        return true;
      }
      response.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token", resource_metadata="http://127.0.0.1:1/prm"' }).end();
      return true;
    },
  });
}

describe('HTTP client transport auth option', () => {
  for (const engine of ['node', 'fetch'] as const) {
    it(`${engine}: a 401 is put to challenged, the request goes again with the new headers, every request carries them`, async () => {
      const mock = await guarded('t1');
      const auth = countingAuth();
      const transport = engine === 'node' ? createStreamableHttpClientTransport(mock.url, { auth }) : createFetchHttpClientTransport(mock.url, { auth });
      const session = await createClient({ era: 'legacy', name: 'auth-spec', version: '1.0.0' }).connect(transport);
      const result = await session.callTool('echo', { a: 1 });
      assert.equal((result.content[0] as { text: string }).text, '{"a":1}');
      await session.close();
      assert.equal(auth.challenges.length, 1, 'one challenge, on the first request');
      assert.equal(auth.challenges[0]?.status, 401);
      assert.match(auth.challenges[0]?.header('WWW-Authenticate') ?? '', /resource_metadata=/);
      const posts = mock.received.filter((request) => request.method === 'POST');
      assert.equal(posts[0]?.headers['authorization'], undefined, 'the first POST went out without a token');
      for (const post of posts.slice(1)) assert.equal(post.headers['authorization'], 'Bearer t1');
      assert.ok(auth.observed.includes(401) && auth.observed.includes(200), 'observe saw the refusal and the successes');
      await mock.close();
    });
  }

  it('gives up after maxAuthRetries with an Unauthorized LocalError naming the status', async () => {
    const mock = await guarded('never');
    const auth = countingAuth();
    const transport = createStreamableHttpClientTransport(mock.url, { auth, maxAuthRetries: 2, mode: 'streamable' });
    await assert.rejects(createClient({ era: 'legacy', name: 'auth-spec', version: '1.0.0' }).connect(transport, { initializeTimeoutMs: 5000 }), (error: unknown) => {
      const cause = (error as { cause?: unknown }).cause ?? error;
      const local = isLocalError(error, 'Unauthorized') ? error : cause;
      assert.ok(isLocalError(local, 'Unauthorized'), `an Unauthorized LocalError, got ${String(error)}`);
      assert.match(local.message, /HTTP 401/);
      assert.doesNotMatch(local.message, /Bearer t\d/, 'no token in the message');
      return true;
    });
    assert.equal(auth.challenges.length, 2, 'challenged twice, then no more');
    assert.equal(mock.received.filter((request) => request.method === 'POST').length, 3, 'the request went out 1 + 2 times');
    await mock.close();
  });

  it('a refusal the auth cannot cure fails at once; a 403 without a challenge is not put to it', async () => {
    const refused = await guarded('t1');
    const declining = countingAuth({ cure: false });
    await assert.rejects(
      createClient({ era: 'legacy', name: 'auth-spec', version: '1.0.0' }).connect(createStreamableHttpClientTransport(refused.url, { auth: declining, mode: 'streamable' }), { initializeTimeoutMs: 5000 }),
      /refused with HTTP 401/,
    );
    assert.equal(declining.challenges.length, 1);
    await refused.close();

    const forbidding = await guarded('t9', { forbid: true });
    const auth = countingAuth();
    await assert.rejects(
      createClient({ era: 'legacy', name: 'auth-spec', version: '1.0.0' }).connect(createStreamableHttpClientTransport(forbidding.url, { auth, mode: 'streamable' }), { initializeTimeoutMs: 5000 }),
      /403/,
    );
    assert.equal(auth.challenges.length, 1, 'the 401 was put to it, the plain 403 after it was not');
    await forbidding.close();
  });

  it('the HTTP+SSE fallback carries the headers on its stream and its POSTs', async () => {
    const mock = await guarded('t1', { legacy: true });
    const auth = countingAuth();
    auth.token = 1;
    const session = await createClient({ era: 'legacy', name: 'auth-spec', version: '1.0.0', protocolVersion: '2024-11-05' }).connect(createStreamableHttpClientTransport(mock.url, { auth, mode: 'legacy-sse' }));
    await session.callTool('echo', {});
    await session.close();
    assert.ok(mock.received.length >= 3);
    for (const request of mock.received) assert.equal(request.headers['authorization'], 'Bearer t1', `${request.method} ${request.path}`);
    await mock.close();
  });
});
