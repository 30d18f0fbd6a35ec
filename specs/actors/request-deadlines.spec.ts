/**
 * The deadline sweep (actors/request-deadlines.ts): one timer per session times out the requests it sends, each
 * at its own deadline, never before it; no timer is left once the last request is answered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeadlineSweep } from '../../actors/request-deadlines.ts';
import type { PendingRequest } from '../../actors/session-context.ts';
import type { Clock, TimerHandle } from '../../core/clock.ts';
import { isLocalError } from '../../core/errors.ts';
import type { JsonObject, RequestId } from '../../core/jsonrpc.ts';
import { LazyTable } from '../../core/lazy-table.ts';
import type { McpSession } from '../../session/session-core.ts';
import { deferred } from '../support/harness.ts';
import { TestClock, connectPair, settle, teardown, toolResult } from '../support/test-clock.ts';

/** A request as the sweep sees it: a deadline, and the instants it was told to expire. */
class FakeRequest implements PendingRequest {
  readonly expiredAt: number[] = [];
  constructor(private readonly clock: Clock, public deadline: number) {}
  expire(): void {
    this.expiredAt.push(this.clock.now());
  }
  onResponse(): void {}
  onProgress(): void {}
  fail(): void {}
}

function sweepOn(clock: Clock): { sweep: DeadlineSweep; table: LazyTable<RequestId, PendingRequest>; add(id: number, deadline: number): FakeRequest } {
  const table = new LazyTable<RequestId, PendingRequest>();
  const sweep = new DeadlineSweep(clock, table);
  return {
    sweep,
    table,
    add(id, deadline) {
      const request = new FakeRequest(clock, deadline);
      table.set(id, request);
      sweep.watch(deadline);
      return request;
    },
  };
}

test('deadline sweep - one timer for many deadlines: each request expires at its own deadline, in order', () => {
  const clock = new TestClock();
  const { table, add } = sweepOn(clock);
  const a = add(1, 1000);
  clock.advance(100);
  const b = add(2, 1100);
  const c = add(3, 1050);
  assert.equal(clock.pending, 1, 'later deadlines arm nothing: one timer for three requests');
  clock.advance(899);
  assert.deepEqual([a.expiredAt, b.expiredAt, c.expiredAt], [[], [], []], 'nothing before the first deadline');
  clock.advance(1);
  assert.deepEqual(a.expiredAt, [1000], 'the first at its deadline exactly');
  table.delete(1);
  clock.advance(50);
  assert.deepEqual(c.expiredAt, [1050]);
  table.delete(3);
  assert.deepEqual(b.expiredAt, []);
  clock.advance(50);
  assert.deepEqual(b.expiredAt, [1100]);
  table.delete(2);
  assert.equal(clock.pending, 0, 'a sweep that finds no deadline left arms nothing');
});

test('deadline sweep - an earlier deadline arms the timer earlier; an answered request is simply not found', () => {
  const clock = new TestClock();
  const { sweep, table, add } = sweepOn(clock);
  add(1, 5000);
  const short = add(2, 200);
  assert.equal(clock.pending, 1, 'the timer was moved, not doubled');
  clock.advance(200);
  assert.deepEqual(short.expiredAt, [200]);
  table.delete(2);
  table.delete(1);
  assert.equal(sweep.armed, true, 'still armed for the first deadline');
  clock.advance(4800);
  assert.equal(sweep.armed, false, 'it found the table empty and stopped');
  assert.equal(clock.pending, 0);
});

test('deadline sweep - a timer that fires early times nothing out and arms again for the rest', () => {
  // A host clock whose timers run 5 ms early (as a monotonic timer can against Date.now): the deadline still holds.
  let now = 0;
  const due: Array<{ at: number; callback: () => void; cancelled: boolean }> = [];
  const early: Clock = {
    now: () => now,
    setTimeout(callback, ms): TimerHandle {
      const timer = { at: now + ms - 5, callback, cancelled: false };
      due.push(timer);
      return { cancel: () => void (timer.cancelled = true) };
    },
    setInterval: () => ({ cancel: () => undefined }),
  };
  const { add } = sweepOn(early);
  const request = add(1, 100);
  const first = due.shift();
  assert.ok(first !== undefined && !first.cancelled);
  now = first.at;
  first.callback();
  assert.deepEqual(request.expiredAt, [], 'not due at 95 ms');
  const again = due.shift();
  assert.ok(again !== undefined, 'armed again for the remaining 5 ms');
  now = 100;
  again.callback();
  assert.deepEqual(request.expiredAt, [100]);
});

test('deadline sweep - a deadline past the longest timer a host arms is reached in steps, exactly', () => {
  const clock = new TestClock();
  const { add } = sweepOn(clock);
  const thirtyDays = 30 * 24 * 3_600_000;
  const request = add(1, thirtyDays);
  assert.equal(clock.nextDue, 2 ** 31 - 1, 'armed for the longest wait a host honours, not for 30 days (taken as 1 ms)');
  clock.advance(thirtyDays - 1);
  assert.deepEqual(request.expiredAt, []);
  clock.advance(1);
  assert.deepEqual(request.expiredAt, [thirtyDays]);
});

test('deadline sweep - stop cancels the timer', () => {
  const clock = new TestClock();
  const { sweep, add } = sweepOn(clock);
  add(1, 1000);
  assert.equal(clock.pending, 1);
  sweep.stop();
  assert.equal(clock.pending, 0);
});

/** The requests a session sends, as its deadline sweep sees them. */
const sweepingOf = (session: McpSession): boolean => (session as unknown as { sent: { sweeping: boolean } }).sent.sweeping;

test('deadline sweep - session: requests time out at their deadlines, and no timer is left once the last is answered', async () => {
  const clock = new TestClock();
  const answers: Array<(result: JsonObject) => void> = [];
  const pair = await connectPair({
    clock,
    serverHandlers: {
      'tools/call': () => {
        const answer = deferred<JsonObject>();
        answers.push(answer.resolve);
        return answer.promise;
      },
    },
  });
  const client = pair.client;
  const outcomes: string[] = [];
  const started = clock.now();
  const call = (tag: string, timeoutMs: number): Promise<void> =>
    client.request('tools/call', { name: tag, arguments: {} }, { timeoutMs }).then(
      () => void outcomes.push(`${tag} answered at ${clock.now() - started}`),
      (error: unknown) => void outcomes.push(`${tag} ${isLocalError(error, 'RequestTimeout') ? 'timed out' : String(error)} at ${clock.now() - started}`),
    );
  const done = [call('a', 1000), call('b', 300), call('c', 60_000)];
  await settle();
  assert.equal(sweepingOf(client), true);
  await clock.advanceAsync(299);
  assert.deepEqual(outcomes, []);
  await clock.advanceAsync(1);
  assert.deepEqual(outcomes, ['b timed out at 300']);
  await clock.advanceAsync(700);
  assert.deepEqual(outcomes, ['b timed out at 300', 'a timed out at 1000']);
  assert.equal(sweepingOf(client), true, 'c still waits');
  // The third is answered: the session waits for nothing and holds no timer.
  answers[2]?.(toolResult('c'));
  await Promise.all(done);
  assert.deepEqual(outcomes.at(-1), 'c answered at 1000');
  assert.equal(sweepingOf(client), false, 'no deadline timer once the last request is answered');
  assert.equal(clock.pending, 0, 'no timer at all in the idle pair');
  await teardown(clock, [pair.client, pair.server], pair.oracles);
});

test('deadline sweep - session: resetTimeoutOnProgress moves the deadline on each progress report', async () => {
  const clock = new TestClock();
  const pair = await connectPair({
    clock,
    serverHandlers: {
      'tools/call': async (_params, context) => {
        for (let n = 1; n <= 3; n++) {
          await new Promise<void>((resolve) => clock.setTimeout(resolve, 900));
          context.progress(n);
        }
        return new Promise<JsonObject>(() => {});
      },
    },
  });
  let error: unknown;
  const progress: number[] = [];
  const started = clock.now();
  pair.client.request('tools/call', { name: 'slow', arguments: {} }, { timeoutMs: 1000, resetTimeoutOnProgress: true, onProgress: (event) => progress.push(event.progress) }).catch((e: unknown) => (error = e));
  await settle();
  // Progress at 900, 1800, 2700 moves the deadline to 1900, 2800, 3700: alive long past the first 1000 ms.
  while (clock.now() - started < 3600) await clock.advanceAsync(100);
  await clock.advanceAsync(99);
  assert.deepEqual(progress, [1, 2, 3]);
  assert.equal(error, undefined, 'alive at 3699 ms');
  await clock.advanceAsync(1);
  assert.ok(isLocalError(error, 'RequestTimeout'), `RequestTimeout at 3700, got ${String(error)}`);
  assert.equal(sweepingOf(pair.client), false);
  await teardown(clock, [pair.client, pair.server], pair.oracles);
});
