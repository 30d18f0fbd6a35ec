/**
 * hostMetrics: a session host's figures read by the SDK when it collects: live sessions, accepted and refused
 * totals, and closes.
 *
 * @own-process: registers the OpenTelemetry SDK globally (specs/otel/support.ts), once per process
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import { createServer } from '../../server/create-server.ts';
import { createSessionHost } from '../../server/session-host.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { hostMetrics } from '../../otel/host-metrics.ts';
import { installTelemetry } from './support.ts';

const telemetry = installTelemetry();
after(() => telemetry.meterProvider.shutdown());

const valueOf = async (name: string): Promise<number | undefined> => (await telemetry.points(name)).find((point) => point.attributes['host'] === 'a')?.value as number | undefined;

test('hostMetrics - the host figures as observable instruments, read on collection', async () => {
  const server = createServer({ name: 'hosted', version: '1.0.0' });
  const host = createSessionHost(server, { maxSessions: 1 });
  const reporting = hostMetrics(host, { attributes: { host: 'a' } });
  const client = createClient({ name: 'c', version: '1.0.0', era: 'legacy' });
  const [clientEnd, serverEnd] = createMemoryPair();
  host.accept(serverEnd);
  const session = await client.connect(clientEnd);
  assert.throws(() => host.accept(createMemoryPair()[1]));
  assert.equal(await valueOf('rxmcp.host.sessions'), 1);
  assert.equal(await valueOf('rxmcp.host.sessions.accepted'), 1);
  assert.equal(await valueOf('rxmcp.host.sessions.refused'), 1);
  assert.equal(await valueOf('rxmcp.host.active_requests'), 0);
  await session.close();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(await valueOf('rxmcp.host.sessions'), 0);
  assert.equal(await valueOf('rxmcp.host.sessions.closed'), 1);
  reporting.remove();
  await host.close();
});
