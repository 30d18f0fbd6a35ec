/**
 * Modern era (2026-07-28) over Streamable HTTP, real 127.0.0.1 sockets: a request refused by a rate limit
 * (-32029, limits/rate-limit.ts) is its own POST, so it is answered HTTP 429 with `Retry-After` in whole
 * seconds (rounded up from `error.data.retryAfterMs`), the JSON-RPC error in the body. The error raised by a
 * handler and the one raised by `server.use(rateLimit(...))` take the same path to the reply.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateLimit, rateLimitExceeded } from '../../../../limits/rate-limit.ts';
import { asBody } from '../../../support/http-raw-client.ts';
import { ModernHttp, assertErrorReply, serveModern } from './modern-http.ts';

describe('modern HTTP answers: rate limits', () => {
  test('-32029 is 429 with Retry-After rounded up to whole seconds, the error data intact', async () => {
    await using served = await serveModern();
    served.server.tool({ name: 'limited' }, () => {
      throw rateLimitExceeded('per-principal', 1500);
    });
    served.server.tool({ name: 'soon' }, () => {
      throw rateLimitExceeded('per-tool', 20);
    });
    const client = new ModernHttp(served.url);
    const reply = await client.post('tools/call', { name: 'limited', arguments: {} }, { id: 'rl' });
    const error = assertErrorReply(reply, 429, -32029, 'rl');
    assert.equal(asBody(reply).headers['retry-after'], '2');
    assert.deepEqual(error['data'], { limit: 'per-principal', retryAfterMs: 1500 });
    assert.match(String(error['message']), /^Rate limit exceeded: per-principal; retry after 2 s$/);
    const soon = await client.post('tools/call', { name: 'soon', arguments: {} }, { id: 'soon' });
    assertErrorReply(soon, 429, -32029, 'soon');
    assert.equal(asBody(soon).headers['retry-after'], '1');
    client.assertClean();
  });

  test('server.use(rateLimit): the third call of a tool within the second is refused 429, other tools are not', async () => {
    await using served = await serveModern();
    served.server.tool({ name: 'search' }, () => 'found');
    served.server.tool({ name: 'other' }, () => 'fine');
    served.server.use(rateLimit({ limits: [{ name: 'search calls', by: 'tool', capacity: 2, refillPerSecond: 1 }] }), { tool: 'search' });
    const client = new ModernHttp(served.url);
    for (const id of ['a', 'b']) assert.equal(asBody(await client.post('tools/call', { name: 'search', arguments: {} }, { id })).status, 200);
    const refused = await client.post('tools/call', { name: 'search', arguments: {} }, { id: 'c' });
    const error = assertErrorReply(refused, 429, -32029, 'c');
    assert.equal((error['data'] as { limit: string }).limit, 'search calls');
    assert.equal(asBody(refused).headers['retry-after'], '1');
    assert.equal(asBody(await client.post('tools/call', { name: 'other', arguments: {} }, { id: 'd' })).status, 200);
    client.assertClean();
  });

  test('other errors keep their statuses and carry no Retry-After', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const reply = await client.post('no/such-method', {}, { id: 'x' });
    assertErrorReply(reply, 404, -32601, 'x');
    assert.equal(asBody(reply).headers['retry-after'], undefined);
  });
});
