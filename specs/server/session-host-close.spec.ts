/**
 * The session host's graceful close: new sessions are refused at once, running requests finish within the
 * drain time, and those outlasting it are answered with the shutdown error (never left without an answer).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isLocalError, isWireError } from '../../core/errors.ts';
import { createClient } from '../../client/create-client.ts';
import { createServer } from '../../server/create-server.ts';
import { createSessionHost } from '../../server/session-host.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { within } from '../support/harness.ts';

const client = createClient({ name: 'host-close-spec', version: '1', era: 'legacy' });

function sleepyServer() {
  const server = createServer({ name: 'host-close-server', version: '1' });
  server.tool({ name: 'sleep', inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } }, (args, context) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: `slept ${String(args.ms)}` }] }), Number(args.ms));
      context.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(context.signal.reason);
      });
    }),
  );
  return server;
}

test('session host - close({ drainMs }) refuses new sessions, lets running calls finish, answers the one outlasting the deadline', async () => {
  const host = createSessionHost(sleepyServer());
  const connect = async () => {
    const [clientEnd, serverEnd] = createMemoryPair();
    host.accept(serverEnd);
    return client.connect(clientEnd);
  };
  const [first, second] = await Promise.all([connect(), connect()]);
  const quick = [first.callTool('sleep', { ms: 100 }), second.callTool('sleep', { ms: 150 })];
  const outlasting = first.callTool('sleep', { ms: 60_000 }).then(
    () => assert.fail('it cannot finish'),
    (error: unknown) => error,
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  const closing = host.close({ drainMs: 400 });
  assert.match(host.refusal()?.message ?? '', /shutting down/);
  const [clientEnd, serverEnd] = createMemoryPair();
  assert.throws(() => host.accept(serverEnd), (error: unknown) => isLocalError(error, 'SessionLimit'));
  await assert.rejects(client.connect(clientEnd));
  const results = await within(Promise.all(quick), 1000, 'the quick calls');
  assert.deepEqual(results.map((result) => result.content[0]), [{ type: 'text', text: 'slept 100' }, { type: 'text', text: 'slept 150' }]);
  const error = await within(outlasting, 2000, 'the outlasting call');
  assert.ok(isWireError(error), `a wire error, got ${String(error)}`);
  assert.match(error.message, /^The server shut down before tools\/call \(request \d+\) finished: the shutdown deadline of 400 ms passed$/);
  await within(closing, 2000, 'the close');
  assert.equal(host.sessions.size, 0);
});
