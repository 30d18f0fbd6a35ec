/**
 * rxmcp/otel's metrics with the real OpenTelemetry SDK (a metric reader collected on demand): the operation
 * duration histograms of the conventions on both sides (with error.type on failures), in-flight requests back
 * to zero, errors counted, and a server's open sessions and their duration; instrument() registers all of it.
 *
 * @own-process: registers the OpenTelemetry SDK globally (specs/otel/support.ts), once per process
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import { instrument } from '../../otel/instrument.ts';
import { askingClient, connect, servedTools } from '../features/interceptors/support.ts';
import { installTelemetry } from './support.ts';

const telemetry = installTelemetry();
after(() => telemetry.meterProvider.shutdown());

const sum = (points: { value: unknown }[]): number => points.reduce((total, point) => total + (point.value as number), 0);

describe('metrics through instrument()', () => {
  test('durations, in-flight requests, errors and sessions, over memory in the legacy era', async () => {
    const served = servedTools();
    const serverInstrumentation = instrument(served.server);
    const client = askingClient('legacy');
    instrument(client);
    const session = await connect(served.server, client);
    await session.callTool('echo', { text: 'a' });
    await session.callTool('echo', { text: 'b' });
    await assert.rejects(session.callTool('missing'));

    const serverDurations = await telemetry.points('mcp.server.operation.duration');
    const echo = serverDurations.filter((point) => point.attributes['gen_ai.tool.name'] === 'echo');
    assert.equal(echo.length, 1, 'one series for echo (no error.type)');
    const echoHistogram = echo[0]?.value as Histogram;
    assert.equal(echoHistogram.count, 2);
    assert.ok((echoHistogram.sum ?? 0) >= 0 && (echoHistogram.sum ?? 0) < 5, 'seconds, not milliseconds');
    assert.equal(echo[0]?.attributes['mcp.method.name'], 'tools/call');
    const missing = serverDurations.find((point) => point.attributes['gen_ai.tool.name'] === 'missing');
    assert.match(String(missing?.attributes['error.type']), /^-32\d{3}$/);

    const clientDurations = await telemetry.points('mcp.client.operation.duration');
    assert.equal((clientDurations.find((point) => point.attributes['gen_ai.tool.name'] === 'echo')?.value as Histogram).count, 2);

    assert.equal(sum(await telemetry.points('rxmcp.server.active_requests')), 0, 'nothing in flight once answered');
    assert.equal(sum(await telemetry.points('rxmcp.client.active_requests')), 0);
    assert.equal(sum(await telemetry.points('rxmcp.server.errors')), 1);
    assert.equal(sum(await telemetry.points('rxmcp.client.errors')), 1);

    // While a call hangs it is in flight on both sides.
    const hanging = session.callTool$('hang').subscribe({ error: () => undefined });
    await served.hangStarted;
    assert.equal(sum((await telemetry.points('rxmcp.server.active_requests')).filter((point) => point.attributes['gen_ai.tool.name'] === 'hang')), 1);
    hanging.unsubscribe();
    await served.hangAborted;
    const hangErrors = (await telemetry.points('rxmcp.client.errors')).find((point) => point.attributes['gen_ai.tool.name'] === 'hang');
    assert.equal(hangErrors?.attributes['error.type'], 'cancelled');

    assert.equal(sum(await telemetry.points('rxmcp.server.sessions')), 1, 'one session open');
    await session.close();
    // The server side learns of the close a moment later.
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(sum(await telemetry.points('rxmcp.server.sessions')), 0, 'closed');
    const sessionDurations = await telemetry.points('mcp.server.session.duration');
    assert.equal(sessionDurations.reduce((total, point) => total + (point.value as Histogram).count, 0), 1);
    serverInstrumentation.remove();
    await served.server.close();
  });
});
