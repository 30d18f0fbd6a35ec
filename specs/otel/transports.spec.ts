/**
 * One trace across real transports: the `_meta` trace context crosses Streamable HTTP (both eras), NATS (a real
 * nats-server, both eras) and the path client -> HTTP -> `rxmcp gateway` -> NATS -> server, with no help from
 * the transports or the gateway: the server span is the client span's child in every case. The NATS client
 * transport also mirrors the trace context into `traceparent`/`tracestate` headers for NATS-level tools.
 *
 * @own-process: registers the OpenTelemetry SDK globally (specs/otel/support.ts), once per process
 */
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import { connect as connectNats } from '@nats-io/transport-node';
import { createGateway } from '../../cli/gateway/gateway.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { tracing } from '../../otel/tracing.ts';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from '../../transports/http/index.ts';
import { createNatsClientTransport, serveNats } from '../../transports/nats/index.ts';
import { askingClient, servedTools } from '../features/interceptors/support.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { eventually, installTelemetry, spansNamed } from './support.ts';

const telemetry = installTelemetry();
beforeEach(() => telemetry.spans.reset());
after(() => telemetry.meterProvider.shutdown());

/** Calls echo and checks the two spans: one trace, the server span the client span's child. */
async function assertOneTrace(session: ClientSession): Promise<void> {
  await session.callTool('echo', { text: 'hi' });
  await eventually(() => spansNamed(telemetry.spans, 'tools/call echo').length === 2);
  const spans = spansNamed(telemetry.spans, 'tools/call echo');
  const client = spans.find((span) => span.kind === SpanKind.CLIENT);
  const server = spans.find((span) => span.kind === SpanKind.SERVER);
  assert.ok(client && server);
  assert.equal(server.spanContext().traceId, client.spanContext().traceId);
  assert.equal(server.parentSpanContext?.spanId, client.spanContext().spanId);
  telemetry.spans.reset();
}

function tracedServer() {
  const served = servedTools();
  served.server.use(tracing());
  return served.server;
}

function tracedClient(era: 'legacy' | 'modern') {
  const client = askingClient(era);
  client.use(tracing());
  return client;
}

describe('one trace across transports', () => {
  for (const era of ['legacy', 'modern'] as const) {
    test(`Streamable HTTP, ${era} era`, async () => {
      const server = tracedServer();
      const http = createStreamableHttpServer({ server });
      const { url } = await http.listen();
      try {
        const session = await tracedClient(era).connect(createStreamableHttpClientTransport(url));
        await assertOneTrace(session);
        await session.close();
      } finally {
        await http.close();
        await server.close();
      }
    });
  }

  test('NATS (a real nats-server), both eras', async () => {
    await using nats = await startNatsServer();
    const server = tracedServer();
    const serverConnection = await connectNats({ servers: nats.url });
    const clientConnection = await connectNats({ servers: nats.url });
    const serving = await serveNats(server, { connection: serverConnection, name: 'traced' });
    // A bus tap: every message's trace-context header, as NATS-level tools see it.
    const tapConnection = await connectNats({ servers: nats.url });
    const headerParents: string[] = [];
    tapConnection.subscribe('>', { callback: (_error, msg) => {
      const traceparent = msg.headers?.get('traceparent');
      if (traceparent !== undefined && traceparent !== '') headerParents.push(traceparent);
    } });
    await tapConnection.flush();
    try {
      for (const era of ['legacy', 'modern'] as const) {
        const session = await tracedClient(era).connect(createNatsClientTransport({ connection: clientConnection, name: 'traced' }));
        headerParents.length = 0;
        await session.callTool('echo', { text: 'tapped' });
        await eventually(() => spansNamed(telemetry.spans, 'tools/call echo').length === 2);
        const sent = spansNamed(telemetry.spans, 'tools/call echo').find((span) => span.kind === SpanKind.CLIENT);
        assert.ok(sent);
        // The request's NATS message mirrors the _meta trace context in a traceparent header.
        await eventually(() => headerParents.some((value) => value.split('-')[2] === sent.spanContext().spanId), `${era}: a traceparent header of the client span on the bus`);
        telemetry.spans.reset();
        await assertOneTrace(session);
        await session.close();
      }
    } finally {
      await serving.close('end', { drainMs: 0 });
      await server.close();
      await tapConnection.close();
      await clientConnection.close();
      await serverConnection.close();
    }
  });

  test('client -> HTTP -> gateway -> NATS -> server, both eras', async () => {
    await using nats = await startNatsServer();
    const server = tracedServer();
    const serverConnection = await connectNats({ servers: nats.url });
    const gatewayConnection = await connectNats({ servers: nats.url });
    const serving = await serveNats(server, { connection: serverConnection, name: 'traced-behind-gateway' });
    const gateway = await createGateway({ connection: gatewayConnection, name: 'traced-behind-gateway' });
    const listening = await gateway.http.listen(0, '127.0.0.1');
    const tapConnection = await connectNats({ servers: nats.url });
    const headerParents: string[] = [];
    tapConnection.subscribe('>', { callback: (_error, msg) => {
      const traceparent = msg.headers?.get('traceparent');
      if (traceparent !== undefined && traceparent !== '') headerParents.push(traceparent);
    } });
    await tapConnection.flush();
    try {
      for (const era of ['legacy', 'modern'] as const) {
        const session = await tracedClient(era).connect(createStreamableHttpClientTransport(listening.url));
        headerParents.length = 0;
        await assertOneTrace(session);
        // The gateway's NATS message for the call carries the client span's trace context in its headers too.
        await eventually(() => headerParents.length > 0, `${era}: a traceparent header on the bus`);
        await session.close();
      }
    } finally {
      await tapConnection.close();
      await listening.close();
      await gateway.close({ drainMs: 0 });
      await serving.close('end', { drainMs: 0 });
      await server.close();
      await gatewayConnection.close();
      await serverConnection.close();
    }
  });
});
