/**
 * rateLimit through server.use, end to end over the memory pair in the legacy era: per-session buckets keep
 * two sessions apart (each legacy session has its own id), and the refusal reaches the client as -32029 with
 * the limit's name and a retry-after.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type McpClient, createClient } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { isWireError } from '../../core/errors.ts';
import { rateLimit, retryAfterMsOf } from '../../limits/rate-limit.ts';
import { createServer } from '../../server/create-server.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';

async function connect(client: McpClient, accept: (transport: ReturnType<typeof createMemoryPair>[1]) => void): Promise<ClientSession> {
  const [near, far] = createMemoryPair();
  accept(far);
  return client.connect(near);
}

describe('rateLimit through server.use', () => {
  test('per session: one session over its limit is refused -32029, another session is not', async () => {
    const server = createServer({ name: 'limited', version: '1.0.0' });
    server.tool({ name: 'work' }, () => 'done');
    server.use(rateLimit({ limits: [{ name: 'per session', by: 'session', capacity: 2, refillPerSecond: 0.001 }] }), { tool: 'work' });
    const client = createClient({ name: 'caller', version: '1.0.0', era: 'legacy' });
    const first = await connect(client, (far) => server.accept(far));
    const second = await connect(client, (far) => server.accept(far));
    try {
      await first.callTool('work', {});
      await first.callTool('work', {});
      const refused: unknown = await first.callTool('work', {}).then(() => undefined, (error: unknown) => error);
      assert.ok(isWireError(refused), 'the third call of the first session is refused');
      assert.equal(refused.code, -32029);
      assert.match(refused.message, /per session/);
      const wait = retryAfterMsOf(refused);
      assert.ok(wait !== undefined && wait > 0);
      // The second session has a bucket of its own.
      const result = await second.callTool('work', {});
      assert.deepEqual(result.content, [{ type: 'text', text: 'done' }]);
    } finally {
      await first.close();
      await second.close();
      await server.close();
    }
  });
});
