/**
 * Timeouts in rxmcp/otel, with the real OpenTelemetry SDK (in-memory exporter and reader), over memory in both eras
 * on a simulated clock. A timeout is not a cancellation: its span and its metrics carry `error.type`
 * `RequestTimeout` (the local error's code), status ERROR and the exception. A sent request that timed out is then
 * cancelled with the peer, which its CLIENT span records as a `cancelled` event with `rxmcp.cancel.reason` `timeout`;
 * the peer's SERVER span is cancelled, since for it that is what happened. A handler that runs past its own time
 * ends its SERVER span as timed out (no `cancelled` event: nothing was cancelled on the wire), and the client's span
 * records the error the server answered with. A caller aborting is still `cancelled` on both sides.
 *
 * @own-process: registers the OpenTelemetry SDK globally (specs/otel/support.ts), once per process
 */
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createClient } from '../../client/create-client.ts';
import { isLocalError } from '../../core/errors.ts';
import { CANCEL_REASON, metrics, tracing } from '../../otel/index.ts';
import { createServer } from '../../server/create-server.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { deferred } from '../support/harness.ts';
import { TestClock, settle } from '../support/test-clock.ts';
import { eventually, installTelemetry, spansNamed } from './support.ts';

const telemetry = installTelemetry();
beforeEach(() => telemetry.spans.reset());
after(() => telemetry.meterProvider.shutdown());

const CLIENT_TIMEOUT_MS = 1_000;
const HANDLER_TIMEOUT_MS = 5_000;

function spanOf(kind: SpanKind): ReadableSpan {
  const found = spansNamed(telemetry.spans, 'tools/call hang').filter((span) => span.kind === kind);
  assert.equal(found.length, 1, `one ${SpanKind[kind]} span (found ${found.length})`);
  return found[0] as ReadableSpan;
}

const eventNames = (span: ReadableSpan): string[] => span.events.map((event) => event.name);

/** How many failed `hang` calls `side` recorded so far, by `error.type` (metrics are cumulative over the file). */
async function failures(side: 'client' | 'server'): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const point of await telemetry.points(`mcp.${side}.operation.duration`)) {
    const type = point.attributes['error.type'];
    if (point.attributes['gen_ai.tool.name'] !== 'hang' || type === undefined) continue;
    counts.set(String(type), (counts.get(String(type)) ?? 0) + (point.value as Histogram).count);
  }
  return counts;
}

/** The `error.type` of each failure `side` recorded since `before`. */
async function failedSince(side: 'client' | 'server', before: Map<string, number>): Promise<string[]> {
  const types: string[] = [];
  for (const [type, count] of await failures(side)) for (let index = before.get(type) ?? 0; index < count; index++) types.push(type);
  return types.sort();
}

/** A server whose `hang` tool runs until its signal aborts, and a client, both traced and measured, on `clock`. */
async function tracedPair(era: 'legacy' | 'modern', clock: TestClock) {
  const server = createServer({ name: 'timeouts', version: '1.0.0', session: { clock, limits: { handlerTimeoutMs: HANDLER_TIMEOUT_MS } } });
  const started = deferred<void>();
  const aborted = deferred<unknown>();
  server.tool({ name: 'hang' }, (_args, ctx) => {
    started.resolve();
    return new Promise<string>((_resolve, reject) => ctx.signal.addEventListener('abort', () => (aborted.resolve(ctx.signal.reason), reject(ctx.signal.reason)), { once: true }));
  });
  server.use(tracing());
  server.use(metrics());
  const client = createClient({ name: 'timeouts-client', version: '1.0.0', era, session: { clock } });
  client.use(tracing());
  client.use(metrics());
  const [clientEnd, serverEnd] = createMemoryPair();
  server.accept(serverEnd);
  const session = await client.connect(clientEnd);
  return { server, session, started: started.promise, aborted: aborted.promise };
}

for (const era of ['legacy', 'modern'] as const) {
  describe(`otel timeouts, ${era} era`, () => {
    test('the request timing out on the client: CLIENT span RequestTimeout with a cancelled event (timeout), SERVER span cancelled', async () => {
      const clock = new TestClock();
      const { server, session, started, aborted } = await tracedPair(era, clock);
      const clientBefore = await failures('client');
      const serverBefore = await failures('server');
      try {
        const call = session.callTool('hang', {}, { timeoutMs: CLIENT_TIMEOUT_MS }).catch((error: unknown) => error);
        await started;
        await clock.advanceAsync(CLIENT_TIMEOUT_MS);
        assert.ok(isLocalError(await call, 'RequestTimeout'));
        await aborted;
        await eventually(() => spansNamed(telemetry.spans, 'tools/call hang').length === 2);
        const clientSpan = spanOf(SpanKind.CLIENT);
        assert.equal(clientSpan.attributes['error.type'], 'RequestTimeout');
        assert.equal(clientSpan.status.code, SpanStatusCode.ERROR);
        assert.deepEqual(eventNames(clientSpan).sort(), ['cancelled', 'exception']);
        assert.equal(clientSpan.events.find((event) => event.name === 'cancelled')?.attributes?.[CANCEL_REASON], 'timeout');
        const serverSpan = spanOf(SpanKind.SERVER);
        assert.equal(serverSpan.attributes['error.type'], 'cancelled', 'the server was cancelled by its peer');
        assert.deepEqual(eventNames(serverSpan), ['cancelled']);
        assert.deepEqual(await failedSince('client', clientBefore), ['RequestTimeout']);
        assert.deepEqual(await failedSince('server', serverBefore), ['cancelled']);
      } finally {
        await session.close();
        await server.close();
      }
    });

    test('the handler running past its time: SERVER span RequestTimeout without a cancelled event; CLIENT span the answered error', async () => {
      const clock = new TestClock();
      const { server, session, started, aborted } = await tracedPair(era, clock);
      const clientBefore = await failures('client');
      const serverBefore = await failures('server');
      try {
        const call = session.callTool('hang', {}, { timeoutMs: Infinity }).catch((error: unknown) => error);
        await started;
        await clock.advanceAsync(HANDLER_TIMEOUT_MS);
        assert.ok(isLocalError(await aborted, 'RequestTimeout'), 'the handler\'s signal says why');
        const answered = (await call) as { code?: unknown };
        await eventually(() => spansNamed(telemetry.spans, 'tools/call hang').length === 2);
        const serverSpan = spanOf(SpanKind.SERVER);
        assert.equal(serverSpan.attributes['error.type'], 'RequestTimeout');
        assert.equal(serverSpan.status.code, SpanStatusCode.ERROR);
        assert.deepEqual(eventNames(serverSpan), ['exception']);
        const clientSpan = spanOf(SpanKind.CLIENT);
        assert.equal(clientSpan.attributes['error.type'], String(answered.code), 'the JSON-RPC error the server answered');
        assert.equal(eventNames(clientSpan).includes('cancelled'), false);
        assert.deepEqual(await failedSince('server', serverBefore), ['RequestTimeout']);
        assert.deepEqual(await failedSince('client', clientBefore), [String(answered.code)]);
      } finally {
        await session.close();
        await server.close();
      }
    });

    test('the caller aborting is a cancellation on both sides, not a timeout', async () => {
      const clock = new TestClock();
      const { server, session, started, aborted } = await tracedPair(era, clock);
      const clientBefore = await failures('client');
      const serverBefore = await failures('server');
      try {
        const abort = new AbortController();
        const call = session.callTool('hang', {}, { signal: abort.signal }).catch((error: unknown) => error);
        await started;
        abort.abort();
        assert.ok(isLocalError(await call, 'RequestAborted'));
        await aborted;
        await settle();
        await eventually(() => spansNamed(telemetry.spans, 'tools/call hang').length === 2);
        for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
          const span = spanOf(kind);
          assert.equal(span.attributes['error.type'], 'cancelled', SpanKind[kind]);
          assert.deepEqual(eventNames(span), ['cancelled']);
          assert.equal(span.events[0]?.attributes?.[CANCEL_REASON], undefined);
        }
        assert.deepEqual(await failedSince('client', clientBefore), ['cancelled']);
        assert.deepEqual(await failedSince('server', serverBefore), ['cancelled']);
      } finally {
        await session.close();
        await server.close();
      }
    });
  });
}
