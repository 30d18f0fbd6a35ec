/**
 * `maxListenStreams`: modern-era `subscriptions/listen` POSTs hold their connection and state for as long as the
 * client listens, so the endpoint bounds how many are open at once; one past the bound is refused up front
 * (503, Retry-After, a JSON-RPC error with the request's id naming the limit), other requests are still served,
 * and a listen that ends frees its place.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ErrorCode } from '../../../../core/error-codes.ts';
import { setTimeout as delay } from 'node:timers/promises';
import { type SseReply, asStream } from '../../../support/http-raw-client.ts';
import { ModernHttp, assertErrorReply, isJson, responseOf, serveModern, warmUp } from './modern-http.ts';

before(warmUp);

async function acknowledged(stream: SseReply): Promise<void> {
  await stream.next((candidate) => {
    if (candidate.event !== 'message' || candidate.data.length === 0) return false;
    const parsed = JSON.parse(candidate.data) as unknown;
    return isJson(parsed) && parsed['method'] === 'notifications/subscriptions/acknowledged';
  });
}

describe('modern HTTP: maxListenStreams', () => {
  test('a listen past the limit is refused with 503, Retry-After and an error naming the limit; other requests go on', async () => {
    await using served = await serveModern({ maxListenStreams: 2 });
    const client = new ModernHttp(served.url);
    const listen = { notifications: { toolsListChanged: true } };
    const first = asStream(await client.post('subscriptions/listen', listen, { id: 'l1' }));
    const second = asStream(await client.post('subscriptions/listen', listen, { id: 'l2' }));
    await acknowledged(first);
    await acknowledged(second);

    const refused = await client.post('subscriptions/listen', listen, { id: 'l3' });
    const error = assertErrorReply(refused, 503, ErrorCode.InternalError, 'l3');
    assert.equal(refused.headers['retry-after'], '30');
    assert.match(String(error['message']), /maximum of 2 listen streams/);
    assert.deepEqual(error['data'], { maxListenStreams: 2 });

    // Calls are not listens: still answered at the limit.
    const called = await responseOf(await client.post('tools/call', { name: 'echo', arguments: { text: 'still here' } }, { id: 'c1' }));
    assert.equal(called['id'], 'c1');
    assert.ok(isJson(called['result']), 'the call was answered');

    // A listen that ends frees its place.
    first.close();
    // The server learns of the close from its socket: retried a bounded number of times until then.
    let accepted: SseReply | undefined;
    for (let attempt = 0; attempt < 100 && accepted === undefined; attempt++) {
      const again = await client.post('subscriptions/listen', listen, { id: `l4-${attempt}` });
      if (again.status === 200) accepted = asStream(again);
      else await delay(20);
    }
    assert.ok(accepted !== undefined, 'a listen was accepted again once one closed');
    await acknowledged(accepted);
    accepted.close();
    second.close();
    client.assertClean();
  });
});
