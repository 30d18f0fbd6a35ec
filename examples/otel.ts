/**
 * OpenTelemetry (`rxmcp/otel`): a span per request on both sides after the MCP semantic conventions, the trace
 * context carried in the request's `_meta` (so one trace runs from the client's span into the server's, over any
 * transport), and request and session metrics.
 *
 * The SDK is set up as an application would (here with in-memory exporters so the example can check what it
 * got; an application exports with OTLP instead). `rxmcp/otel` needs only `@opentelemetry/api`.
 *
 * Run: node otel.js (after tsc), exits 0 when every assertion holds.
 */
import assert from 'node:assert/strict';
import { SpanKind, context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createClient, createServer } from 'rxmcp';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from 'rxmcp/http';
import { instrument } from 'rxmcp/otel';

// The SDK, once per process: a tracer provider, the AsyncLocalStorage context manager, the W3C propagator.
const spans = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
class OnDemand extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}
const reader = new OnDemand();
const meterProvider = new MeterProvider({ readers: [reader] });
metrics.setGlobalMeterProvider(meterProvider);

// The server: spans for every request it serves, request metrics, its sessions.
const server = createServer({ name: 'weather', version: '1.0.0' });
server.tool({ name: 'forecast', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }, async (args, call) => {
  call.progress({ progress: 1, total: 2, message: 'looking up' });
  await new Promise((resolve) => setTimeout(resolve, 5));
  call.progress({ progress: 2, total: 2 });
  return `sunny in ${String(args['city'])}`;
});
instrument(server);
const http = createStreamableHttpServer({ server });
const { url } = await http.listen();

// The client: its spans carry the trace context to the server in `_meta`.
const client = createClient({ name: 'planner', version: '1.0.0' });
instrument(client);
const session = await client.connect(createStreamableHttpClientTransport(url));

// A call made inside the application's own span: the whole exchange is one trace under it.
const tracer = trace.getTracer('planner');
await tracer.startActiveSpan('plan a trip', async (span) => {
  const forecast = await session.callTool('forecast', { city: 'Lisbon' }, { onProgress: () => undefined });
  assert.notEqual(forecast.isError, true);
  await session.callTool('nowhere').catch(() => undefined); // an unknown tool: a JSON-RPC error
  span.end();
});
await session.close();
await new Promise((resolve) => setTimeout(resolve, 20));

const finished = spans.getFinishedSpans();
const byName = (name: string, kind: SpanKind) => finished.find((span) => span.name === name && span.kind === kind);
const root = finished.find((span) => span.name === 'plan a trip');
const sent = byName('tools/call forecast', SpanKind.CLIENT);
const served = byName('tools/call forecast', SpanKind.SERVER);
assert.ok(root && sent && served);
assert.equal(sent.parentSpanContext?.spanId, root.spanContext().spanId);
assert.equal(served.parentSpanContext?.spanId, sent.spanContext().spanId);
assert.equal(served.spanContext().traceId, root.spanContext().traceId);
assert.equal(served.attributes['gen_ai.tool.name'], 'forecast');
assert.equal(served.events.filter((event) => event.name === 'mcp.progress').length, 2);
const failed = byName('tools/call nowhere', SpanKind.SERVER);
assert.match(String(failed?.attributes['error.type']), /^-32\d{3}$/);
console.log(`one trace ${root.spanContext().traceId}:`);
for (const span of finished.filter((each) => each.spanContext().traceId === root.spanContext().traceId)) {
  console.log(`  ${SpanKind[span.kind].padEnd(8)} ${span.name}${span.attributes['error.type'] ? ` (error.type ${String(span.attributes['error.type'])})` : ''}`);
}

const { resourceMetrics } = await reader.collect();
const durations = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((metric) => metric.descriptor.name === 'mcp.server.operation.duration');
assert.ok(durations !== undefined && durations.dataPoints.length > 0);
console.log(`mcp.server.operation.duration: ${durations.dataPoints.length} series (by method, tool, error.type)`);

await http.close();
await server.close();
await meterProvider.shutdown();
