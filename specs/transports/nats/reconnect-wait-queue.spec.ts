/**
 * The NATS binding's wait for a reconnection, shared by its client and server ends (transports/nats/reconnect-wait.ts),
 * on a test clock: frames come back in order, each is given up once it has waited its time (the oldest first,
 * the others keep theirs), the count is bounded, and no timer outlives what waits.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReconnectWait } from '../../../transports/nats/reconnect-wait.ts';
import { TestClock } from '../../support/test-clock.ts';

test('reconnect wait - frames come back in order and no timer is left', () => {
  const clock = new TestClock();
  const gaveUp: string[] = [];
  const wait = new ReconnectWait<string>(clock, 1000, 10, (frame) => void gaveUp.push(frame));
  assert.ok(wait.add('a') && wait.add('b'));
  assert.equal(clock.pending, 1, 'one timer for all that waits');
  assert.deepEqual(wait.takeAll(), ['a', 'b']);
  assert.equal(clock.pending, 0);
  clock.advance(5000);
  assert.deepEqual(gaveUp, [], 'nothing taken back is given up later');
  assert.deepEqual(wait.takeAll(), []);
});

test('reconnect wait - each frame is given up when its own wait is over, the oldest first', () => {
  const clock = new TestClock();
  const gaveUp: string[] = [];
  const wait = new ReconnectWait<string>(clock, 1000, 10, (frame) => void gaveUp.push(frame));
  wait.add('first');
  clock.advance(400);
  wait.add('second');
  clock.advance(599);
  assert.deepEqual(gaveUp, [], 'not before its time');
  clock.advance(1);
  assert.deepEqual(gaveUp, ['first']);
  clock.advance(399);
  assert.deepEqual(gaveUp, ['first'], 'the second keeps the rest of its own wait');
  clock.advance(1);
  assert.deepEqual(gaveUp, ['first', 'second']);
  assert.equal(clock.pending, 0, 'no timer once nothing waits');
});

test('reconnect wait - bounded in count; clear forgets frames and timer', () => {
  const clock = new TestClock();
  const gaveUp: number[] = [];
  const wait = new ReconnectWait<number>(clock, 1000, 3, (frame) => void gaveUp.push(frame));
  assert.deepEqual([1, 2, 3, 4].map((n) => wait.add(n)), [true, true, true, false], 'the fourth does not fit');
  wait.clear();
  assert.equal(clock.pending, 0);
  clock.advance(2000);
  assert.deepEqual(gaveUp, [], 'what was cleared is not given up');
  assert.ok(wait.add(5), 'room again after clear');
});
