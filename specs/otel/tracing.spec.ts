/**
 * rxmcp/otel's spans with the real OpenTelemetry SDK (in-memory exporter), client and server over the memory
 * pair in both eras: one trace across both sides (the server span a child of the client span, through the
 * `_meta` trace context), the conventions' names and attributes, errors, progress events and cancellation.
 *
 * @own-process: registers the OpenTelemetry SDK globally (specs/otel/support.ts), once per process
 */
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { tracing } from '../../otel/tracing.ts';
import { askingClient, connect, servedTools } from '../features/interceptors/support.ts';
import { eventually, installTelemetry, spansNamed } from './support.ts';

const telemetry = installTelemetry();
beforeEach(() => telemetry.spans.reset());
after(() => telemetry.meterProvider.shutdown());

function only(name: string, kind: SpanKind): ReadableSpan {
  const found = spansNamed(telemetry.spans, name).filter((span) => span.kind === kind);
  assert.equal(found.length, 1, `one ${SpanKind[kind]} span named "${name}" (found ${found.length})`);
  return found[0] as ReadableSpan;
}

async function tracedPair(era: 'legacy' | 'modern') {
  const served = servedTools();
  served.server.use(tracing());
  const client = askingClient(era);
  client.use(tracing());
  const session = await connect(served.server, client);
  return { served, session };
}

for (const era of ['legacy', 'modern'] as const) {
  describe(`tracing over memory, ${era} era`, () => {
    test('a tool call is one trace: a CLIENT span and its child SERVER span, named and attributed per the conventions', async () => {
      const { served, session } = await tracedPair(era);
      try {
        const result = await session.callTool('echo', { text: 'hi' });
        // The handler saw the trace context in the request's _meta.
        const meta = (result.structuredContent as { meta: Record<string, unknown> }).meta;
        assert.match(String(meta['traceparent']), /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
        await eventually(() => spansNamed(telemetry.spans, 'tools/call echo').length === 2);
        const client = only('tools/call echo', SpanKind.CLIENT);
        const server = only('tools/call echo', SpanKind.SERVER);
        assert.equal(server.spanContext().traceId, client.spanContext().traceId);
        assert.equal(server.parentSpanContext?.spanId, client.spanContext().spanId);
        assert.equal(String(meta['traceparent']).split('-')[2], client.spanContext().spanId);
        for (const span of [client, server]) {
          assert.equal(span.attributes['mcp.method.name'], 'tools/call');
          assert.equal(span.attributes['gen_ai.tool.name'], 'echo');
          assert.equal(span.attributes['gen_ai.operation.name'], 'execute_tool');
          assert.equal(span.status.code, SpanStatusCode.UNSET);
          assert.equal(span.attributes['error.type'], undefined);
        }
        assert.equal(server.attributes['jsonrpc.request.id'] !== undefined, true, 'the server knows the JSON-RPC id');
        if (era === 'legacy') {
          assert.equal(typeof server.attributes['mcp.session.id'], 'string');
          assert.match(String(server.attributes['mcp.protocol.version']), /^\d{4}-\d{2}-\d{2}$/);
        } else {
          assert.equal(server.attributes['mcp.session.id'], undefined, 'the modern era has no sessions');
          assert.equal(server.attributes['mcp.protocol.version'], '2026-07-28');
        }
      } finally {
        await session.close();
        await served.server.close();
      }
    });

    test('a call made inside an active span is its child; resources and prompts are named per the conventions', async () => {
      const { served, session } = await tracedPair(era);
      try {
        const tracer = trace.getTracer('spec');
        const outer = await tracer.startActiveSpan('outer', async (span) => {
          await session.readResource('memo://a');
          await session.getPrompt('greet');
          span.end();
          return span;
        });
        await eventually(() => spansNamed(telemetry.spans, 'prompts/get greet').length === 2);
        const read = only('resources/read', SpanKind.CLIENT);
        assert.equal(read.parentSpanContext?.spanId, outer.spanContext().spanId);
        assert.equal(read.spanContext().traceId, outer.spanContext().traceId);
        assert.equal(read.attributes['mcp.resource.uri'], 'memo://a');
        assert.equal(only('resources/read', SpanKind.SERVER).attributes['mcp.resource.uri'], 'memo://a');
        const prompt = only('prompts/get greet', SpanKind.SERVER);
        assert.equal(prompt.attributes['gen_ai.prompt.name'], 'greet');
        assert.equal(prompt.spanContext().traceId, outer.spanContext().traceId);
      } finally {
        await session.close();
        await served.server.close();
      }
    });

    test('failures: a JSON-RPC error sets error.type to its code, a tool error to tool_error; status ERROR', async () => {
      const { served, session } = await tracedPair(era);
      try {
        await assert.rejects(session.callTool('missing'));
        await eventually(() => spansNamed(telemetry.spans, 'tools/call missing').length === 2);
        for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
          const span = only('tools/call missing', kind);
          assert.equal(span.status.code, SpanStatusCode.ERROR);
          assert.match(String(span.attributes['error.type']), /^-32\d{3}$/);
          assert.equal(span.attributes['rpc.response.status_code'], span.attributes['error.type']);
        }
        // The flaky tool throws on its first call: the server answers a result with isError.
        const failed = await session.callTool('flaky');
        assert.equal(failed.isError, true);
        await eventually(() => spansNamed(telemetry.spans, 'tools/call flaky').length === 2);
        for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
          const span = only('tools/call flaky', kind);
          assert.equal(span.status.code, SpanStatusCode.ERROR);
          assert.equal(span.attributes['error.type'], 'tool_error');
        }
      } finally {
        await session.close();
        await served.server.close();
      }
    });

    test('progress notifications become span events on both sides', async () => {
      const { served, session } = await tracedPair(era);
      try {
        await session.callTool('steps', {}, { onProgress: () => undefined });
        await eventually(() => spansNamed(telemetry.spans, 'tools/call steps').length === 2);
        for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
          const events = only('tools/call steps', kind).events.filter((event) => event.name === 'mcp.progress');
          assert.deepEqual(events.map((event) => event.attributes?.['mcp.progress.value']), [1, 2, 3], SpanKind[kind]);
          assert.equal(events[0]?.attributes?.['mcp.progress.total'], 3);
        }
      } finally {
        await session.close();
        await served.server.close();
      }
    });

    test('cancellation (the client unsubscribes) ends both spans with a cancelled event and error.type', async () => {
      const { served, session } = await tracedPair(era);
      try {
        const subscription = session.callTool$('hang').subscribe({ error: () => undefined });
        await served.hangStarted;
        subscription.unsubscribe();
        await served.hangAborted;
        await eventually(() => spansNamed(telemetry.spans, 'tools/call hang').length === 2);
        for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
          const span = only('tools/call hang', kind);
          assert.ok(span.events.some((event) => event.name === 'cancelled'), SpanKind[kind]);
          assert.equal(span.attributes['error.type'], 'cancelled');
          assert.equal(span.status.code, SpanStatusCode.ERROR);
        }
      } finally {
        await session.close();
        await served.server.close();
      }
    });

    test('a request the server sends its client (elicitation) is traced as the server span\'s child', async () => {
      const { served, session } = await tracedPair(era);
      try {
        await session.callTool('ask');
        await eventually(() => spansNamed(telemetry.spans, 'elicitation/create').length >= (era === 'legacy' ? 2 : 0) && spansNamed(telemetry.spans, 'tools/call ask').length >= 2);
        const servers = spansNamed(telemetry.spans, 'tools/call ask').filter((span) => span.kind === SpanKind.SERVER);
        const elicitations = spansNamed(telemetry.spans, 'elicitation/create');
        if (era === 'legacy') {
          // The server's CLIENT span for elicitation/create is a child of its tools/call SERVER span, and the
          // client's SERVER span for it a child of that: one trace.
          const sent = elicitations.find((span) => span.kind === SpanKind.CLIENT);
          const answered = elicitations.find((span) => span.kind === SpanKind.SERVER);
          assert.ok(sent && answered);
          assert.equal(sent.parentSpanContext?.spanId, servers[0]?.spanContext().spanId);
          assert.equal(answered.parentSpanContext?.spanId, sent.spanContext().spanId);
        } else {
          // The modern era asks with input_required and a retry: two rounds, each a pair of spans, one trace.
          const rounds = spansNamed(telemetry.spans, 'tools/call ask');
          assert.equal(servers.length, 2);
          assert.equal(rounds.length, 4);
          assert.equal(new Set(rounds.map((span) => span.spanContext().traceId)).size, 1);
        }
      } finally {
        await session.close();
        await served.server.close();
      }
    });
  });
}
