/**
 * A legacy-era call the client cancels gets no response, and servers keep the cancelled request's SSE stream
 * open (ours, and the official ones: see transports/http/server/held-streams.ts). So the client lets go of that
 * stream itself once it sent the cancellation: counted through a recording proxy, every exchange but the standalone
 * GET stream ends, and the session goes on.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient } from '../../../client/create-client.ts';
import { isLocalError } from '../../../core/errors.ts';
import { createServer } from '../../../server/create-server.ts';
import { createStreamableHttpClientTransport } from '../../../transports/http/client/index.ts';
import { createStreamableHttpServer } from '../../../transports/http/index.ts';
import { deferred, eventually } from '../../support/harness.ts';
import { startRecordingProxy } from '../../support/recording-proxy.ts';
import { textOf } from './helpers.ts';

test('http client - a cancelled call lets go of its POST stream, which the server would keep open', async () => {
  const server = createServer({ name: 'held', version: '1.0.0' });
  const started = deferred<void>();
  const aborted = deferred<void>();
  server.tool({ name: 'hang' }, (_args, ctx) => {
    started.resolve();
    return new Promise<string>((_resolve, reject) => ctx.signal.addEventListener('abort', () => (aborted.resolve(), reject(ctx.signal.reason)), { once: true }));
  });
  server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => `echo: ${String(args['text'])}`);
  const http = createStreamableHttpServer({ server });
  const listening = await http.listen(0);
  await using proxy = await startRecordingProxy(listening.url);
  const session = await createClient({ name: 'cancelling', version: '1.0.0', era: 'legacy' }).connect(createStreamableHttpClientTransport(proxy.url));
  try {
    await eventually(() => proxy.requests.some((request) => request.method === 'GET' && request.status === 200), 5_000, 'the standalone GET stream to open');
    const abort = new AbortController();
    const call = session.callTool('hang', {}, { signal: abort.signal }).catch((error: unknown) => error);
    await started.promise;
    assert.equal(proxy.open, 2, 'the GET stream and the call\'s POST stream');
    abort.abort();
    assert.ok(isLocalError(await call, 'RequestAborted'));
    await aborted.promise;
    await eventually(() => proxy.open === 1, 5_000, 'the POST stream to be let go (only the GET stream stays)');
    assert.equal(textOf(await session.callTool('echo', { text: 'on' })), 'echo: on');
    assert.equal(proxy.requests.filter((request) => request.lastEventId !== undefined).length, 0, 'nothing was resumed');
  } finally {
    await session.close();
    await listening.close();
    await http.close();
    await server.close();
  }
});
