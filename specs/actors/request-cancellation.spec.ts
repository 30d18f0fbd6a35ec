/**
 * Every way an incoming request can end before its handler does goes through the request's one stop path: the
 * handler's Observable is torn down once, its signal aborts once, and the requester gets exactly the stated
 * answer (none for a cancellation). One spec per cause, both eras, with the handler plain and behind an
 * interceptor that composes an operator:
 *
 * - the requester's `notifications/cancelled`;
 * - the exchange it came on closed (a medium that takes that as cancelling);
 * - the handler deadline (`handlerTimeoutMs`): one error answer;
 * - the session ending while it runs: one error answer naming the shutdown (or none when the transport went).
 *
 * The client is hand-written over a scripted transport, so the spec states the wire itself.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Observable, Subject, map } from 'rxjs';
import type { InboundFrame, OutboundFrame, Transport } from '../../core/transport.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { McpSession } from '../../session/session-core.ts';
import { createServer } from '../../server/create-server.ts';
import { envelope } from '../support/modern-envelope.ts';

/** A medium the spec drives: frames pushed in by hand, frames sent recorded. */
class ScriptedTransport implements Transport {
  readonly kind = 'scripted';
  readonly frames = new Subject<InboundFrame>();
  readonly incoming$ = this.frames.asObservable();
  readonly sent: OutboundFrame[] = [];

  send(frame: OutboundFrame): void {
    this.sent.push(frame);
  }

  close(): Promise<void> {
    this.frames.complete();
    return Promise.resolve();
  }

  push(payload: JsonObject, exchange?: string): void {
    this.frames.next(exchange === undefined ? { type: 'message', payload } : { type: 'message', payload, exchange });
  }

  /** What was sent that answers `id`. */
  answersTo(id: string): JsonObject[] {
    return this.sent.map((frame) => frame.payload as unknown as JsonObject).filter((payload) => payload['id'] === id);
  }
}

interface Running {
  readonly transport: ScriptedTransport;
  readonly session: McpSession;
  /** Subscriptions to, and teardowns of, the handler's Observable. */
  readonly counts: { subscribed: number; tornDown: number };
  /** The reasons the handler's signal aborted with (once each time it aborted). */
  readonly aborts: unknown[];
  close(): Promise<void>;
}

const tick = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A server with a `hang` tool (an Observable that never ends), one `tools/call` of it running on exchange `x1`. */
async function running(era: 'legacy' | 'modern', intercepted: boolean, handlerTimeoutMs?: number): Promise<Running> {
  const counts = { subscribed: 0, tornDown: 0 };
  const aborts: unknown[] = [];
  const server = createServer({ name: 'cancel-spec', version: '1' });
  server.tool({ name: 'hang' }, (_args, context) => {
    context.signal.addEventListener('abort', () => aborts.push(context.signal.reason));
    return new Observable<string>(() => {
      counts.subscribed++;
      return () => void counts.tornDown++;
    });
  });
  if (intercepted) server.use((request, next) => next(request).pipe(map((event) => event)));
  const transport = new ScriptedTransport();
  const session = server.accept(transport, handlerTimeoutMs === undefined ? undefined : { limits: { handlerTimeoutMs } });
  const params: Record<string, unknown> = { name: 'hang', arguments: {} };
  if (era === 'legacy') {
    transport.push({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'scripted', version: '1' } } });
    transport.push({ jsonrpc: '2.0', method: 'notifications/initialized' });
  } else {
    params['_meta'] = envelope();
  }
  await tick();
  transport.push({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: params as JsonObject }, 'x1');
  await tick();
  assert.equal(counts.subscribed, 1, 'the handler runs');
  return {
    transport,
    session,
    counts,
    aborts,
    close: async () => {
      await session.close();
      await server.close();
    },
  };
}

/** The handler was let go of exactly once, and its signal aborted once with a reason of `code`. */
function assertStoppedOnce(run: Running, code: string): void {
  assert.equal(run.counts.tornDown, 1, 'the handler Observable was torn down once');
  assert.equal(run.aborts.length, 1, 'the handler signal aborted once');
  assert.equal((run.aborts[0] as { code?: unknown }).code, code, `aborted with ${code}`);
}

for (const era of ['legacy', 'modern'] as const) {
  for (const intercepted of [false, true]) {
    describe(`request cancellation (${era} era${intercepted ? ', behind an interceptor' : ''})`, () => {
      test('notifications/cancelled: the handler is stopped once and nothing is answered', async () => {
        const run = await running(era, intercepted);
        run.transport.push({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'call', reason: 'changed my mind' } });
        await tick(5);
        assertStoppedOnce(run, 'RequestAborted');
        assert.deepEqual(run.transport.answersTo('call'), [], 'a cancelled request is not answered');
        await run.close();
        assert.equal(run.counts.tornDown, 1, 'closing the session later stops nothing more');
      });

      test('a closed exchange: the handler is stopped once and nothing is answered', async () => {
        const run = await running(era, intercepted);
        // A legacy-era medium cancels only when it says leaving the exchange means so; the modern era always does.
        run.transport.frames.next(era === 'legacy' ? { type: 'exchange-closed', exchange: 'x1', cancels: true } : { type: 'exchange-closed', exchange: 'x1' });
        await tick(5);
        assertStoppedOnce(run, 'RequestAborted');
        assert.deepEqual(run.transport.answersTo('call'), []);
        await run.close();
        assert.equal(run.counts.tornDown, 1);
      });

      test('the handler deadline: one error answer, then the handler is stopped once', async () => {
        const run = await running(era, intercepted, 30);
        await tick(80);
        assertStoppedOnce(run, 'RequestTimeout');
        const answers = run.transport.answersTo('call');
        assert.equal(answers.length, 1, 'exactly one answer');
        const error = (answers[0] as { error?: { code: number; message: string } }).error;
        assert.equal(error?.code, -32603);
        assert.match(error?.message ?? '', /ran longer than 30 ms/);
        await run.close();
        assert.equal(run.counts.tornDown, 1);
      });

      test('the session ending: one error answer naming the shutdown, then the handler is stopped once', async () => {
        const run = await running(era, intercepted);
        await run.session.close();
        assertStoppedOnce(run, 'ConnectionClosed');
        const answers = run.transport.answersTo('call');
        assert.equal(answers.length, 1, 'exactly one answer');
        const error = (answers[0] as { error?: { code: number; data?: { shutdown?: unknown } } }).error;
        assert.equal(error?.code, -32603);
        assert.equal(error?.data?.shutdown, true);
        await run.close();
      });

      test('the transport going away: the handler is stopped once and nothing can be answered', async () => {
        const run = await running(era, intercepted);
        const sentBefore = run.transport.sent.length;
        run.transport.frames.complete();
        await tick(5);
        assertStoppedOnce(run, 'ConnectionClosed');
        assert.equal(run.transport.sent.length, sentBefore, 'nothing was written after the transport went');
        await run.close();
      });
    });
  }
}
