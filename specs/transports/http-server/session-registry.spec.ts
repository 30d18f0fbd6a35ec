/**
 * The session registry's idle expiry on its own, with a simulated clock: every session expires exactly
 * `idleTimeoutMs` after its last exchange ended (or after it was added), a session with an exchange running never
 * does, and the registry holds one timer however many sessions it holds (none once it holds no session).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LocalError } from '../../../core/errors.ts';
import type { HttpResponder, StreamSink } from '../../../transports/http/server/http-exchange.ts';
import { SessionRegistry } from '../../../transports/http/server/session-registry.ts';
import { TestClock } from '../../support/test-clock.ts';

/** A transport that records when it was closed, and why. */
class Closable {
  closedAt: number | undefined;
  reason: LocalError | undefined;

  constructor(private readonly clock: TestClock) {}

  close(reason?: LocalError): Promise<void> {
    this.closedAt ??= this.clock.now();
    this.reason = reason;
    return Promise.resolve();
  }
}

/** An exchange that finishes when the test says. */
class Exchange implements HttpResponder {
  private listener: ((gone: boolean) => void) | undefined;

  respond(): void {
    throw new Error('not used');
  }

  openStream(): StreamSink {
    throw new Error('not used');
  }

  onFinished(listener: (gone: boolean) => void): void {
    this.listener = listener;
  }

  finish(): void {
    this.listener?.(false);
  }
}

function registryOf(idleTimeoutMs: number): { clock: TestClock; registry: SessionRegistry; open: (id: string) => Closable } {
  const clock = new TestClock(1_000);
  const registry = new SessionRegistry({ maxSessions: 100, idleTimeoutMs, clock });
  const open = (id: string): Closable => {
    const transport = new Closable(clock);
    registry.add({ id, principal: undefined, kind: 'streamable', transport });
    return transport;
  };
  return { clock, registry, open };
}

describe('SessionRegistry: idle expiry', () => {
  test('each session expires idleTimeoutMs after it went idle, in that order, with one timer for all', () => {
    const { clock, registry, open } = registryOf(10_000);
    const a = open('a');
    clock.advance(1_000);
    const b = open('b');
    clock.advance(1_000);
    const c = open('c');
    assert.equal(clock.pending, 1, 'one timer, not one per session');
    // b works from 4,000 to 6,000: its idle time starts again when that exchange ends.
    clock.advance(1_000);
    const exchange = new Exchange();
    registry.hold('b', exchange);
    clock.advance(2_000);
    exchange.finish();
    clock.advance(20_000);
    assert.deepEqual([a.closedAt, b.closedAt, c.closedAt], [11_000, 16_000, 13_000]);
    assert.match(String(a.reason?.message), /expired after 10000 ms/);
    assert.equal(registry.size, 0);
    assert.equal(clock.pending, 0, 'no timer once no session is held');
  });

  test('a session with an exchange running never expires; its idle time starts when the last one ends', () => {
    const { clock, registry, open } = registryOf(10_000);
    const held = open('held');
    const first = new Exchange();
    const second = new Exchange();
    registry.hold('held', first);
    registry.hold('held', second);
    clock.advance(60_000);
    assert.equal(held.closedAt, undefined);
    first.finish();
    clock.advance(60_000);
    assert.equal(held.closedAt, undefined, 'one exchange still runs');
    second.finish();
    clock.advance(9_999);
    assert.equal(held.closedAt, undefined);
    clock.advance(1);
    assert.equal(held.closedAt, 131_000);
  });

  test('a removed session leaves the idle order; the others keep their instants', () => {
    const { clock, registry, open } = registryOf(10_000);
    const a = open('a');
    clock.advance(1_000);
    const b = open('b');
    registry.remove('a', a);
    clock.advance(9_000);
    assert.equal(b.closedAt, undefined);
    clock.advance(1_000);
    assert.deepEqual([a.closedAt, b.closedAt], [undefined, 12_000]);
  });

  test('with idleTimeoutMs 0 or Infinity nothing expires and no timer runs', () => {
    for (const ms of [0, Infinity]) {
      const { clock, open } = registryOf(ms);
      const a = open('a');
      assert.equal(clock.pending, 0);
      clock.advance(1e9);
      assert.equal(a.closedAt, undefined);
    }
  });
});
