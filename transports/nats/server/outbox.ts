/**
 * What a serving process publishes while its NATS connection is down (nats.js reconnecting). nats.js would
 * drop it (it clears its outbound buffer on every reconnection attempt), and the client would then wait for an
 * answer that never comes until its silence limit. So answers, the notifications on a request's reply subject
 * and a legacy session's messages to its client wait here, in order, and go once the connection is back: the
 * client's wait for its requests (`reconnectWaitMs`, reconnect-wait.ts), on the serving side.
 *
 * Bounded in count and bytes (a frame that does not fit is given up at once; notifications may take only half
 * of either, so that a flood of progress never crowds out the answers) and in time (`waitMs`). A frame
 * given up is reported to the connection that sent it (`undeliverable`: a server request fails with the reason,
 * an answer or a notification becomes a session diagnostic) or, that connection being closed already, to the
 * operator: one process warning (`RxmcpNatsUndeliveredWarning`) per turn, however many frames it names. When
 * serving stops, what still waits once the drain is over is given up the same way (`settle`).
 */
import type { NatsConnection, PublishOptions } from '@nats-io/nats-core';
import type { Clock } from '../../../core/clock.ts';
import { LocalError } from '../../../core/errors.ts';
import { type JsonRpcMessage, classify } from '../../../core/jsonrpc.ts';
import { type ConnectionState, connectionState } from '../connection-state.ts';
import type { EarlyFlush } from '../early-flush.ts';
import { ReconnectWait } from '../reconnect-wait.ts';

/** Who published a held frame: told when it is given up. */
export interface OutboxSender {
  /** Whether it can still hear about its frames (a closed session cannot: the operator is told instead). */
  readonly isClosed: boolean;
  undelivered(message: JsonRpcMessage, error: LocalError): void;
}

interface Held {
  readonly subject: string;
  readonly body: Uint8Array;
  readonly options: PublishOptions | undefined;
  readonly message: JsonRpcMessage;
  readonly sender: OutboxSender;
}

/** Frames a process holds at once while its connection is down (four sessions' worth of outbound queue). */
export const MAX_HELD_FRAMES = 4096;
/** Bytes it holds at once. */
export const MAX_HELD_BYTES = 16 * 1024 * 1024;

/** How long an answer waits for the connection unless told otherwise (see NatsServeOptions.reconnectWaitMs). */
export const DEFAULT_SERVER_RECONNECT_WAIT_MS = 10_000;

export class Outbox {
  private readonly state: ConnectionState;
  private readonly wait: ReconnectWait<Held>;
  private bytes = 0;
  private readonly stopWatching: () => void;
  /** Called once nothing waits any more (a settle waiting for it). */
  private readonly whenEmpty = new Set<() => void>();
  /** Frames given up this turn whose senders are closed (what each was, and why): told in one warning. */
  private unheard: Array<{ readonly what: string; readonly why: string }> = [];

  constructor(
    private readonly connection: NatsConnection,
    private readonly clock: Clock,
    /** How long a frame may wait; 0: frames are given up at once. */
    readonly waitMs: number,
    private readonly flush: EarlyFlush,
  ) {
    this.state = connectionState(connection);
    this.holding = this.state.down;
    this.wait = new ReconnectWait<Held>(clock, Math.max(1, waitMs), MAX_HELD_FRAMES, (held) => this.gaveUp(held, `it waited ${waitMs} ms for the connection to come back`));
    this.stopWatching = this.state.on((event) => {
      this.holding = event === 'disconnect' && !connection.isClosed();
      if (event === 'reconnect') this.sendHeld();
    });
    // Closed for good (nats.js gave up reconnecting): nothing waits for it; publishing fails as it did before.
    void connection.closed().then(() => {
      this.holding = false;
      for (const held of this.wait.takeAll()) this.gaveUp(held, 'the NATS connection closed');
    }, () => undefined);
  }

  /** Whether a publish must wait here now: a plain field (set only here), read on every publish of the process. */
  holding: boolean;

  /** Frames waiting now. */
  get size(): number {
    return this.wait.size;
  }

  /** Keeps a frame until the connection is back, or gives it up at once when it cannot wait. */
  hold(subject: string, body: Uint8Array, options: PublishOptions | undefined, message: JsonRpcMessage, sender: OutboxSender): void {
    const held: Held = { subject, body, options, message, sender };
    if (this.waitMs <= 0) return this.gaveUp(held, 'this server does not wait for it (reconnectWaitMs: 0)', false);
    const share = 'method' in message && !('id' in message) ? 2 : 1;
    if (this.wait.size >= MAX_HELD_FRAMES / share || this.bytes + body.byteLength > MAX_HELD_BYTES / share || !this.wait.add(held)) {
      return this.gaveUp(held, `${this.wait.size} messages (${this.bytes} bytes) already wait for the connection, the most this process holds${share === 2 ? ' for notifications' : ''}`, false);
    }
    this.bytes += body.byteLength;
  }

  /**
   * Serving stops: waits (at most `ms`) for the held frames to go, then gives up what still waits. A closed
   * connection never comes back: its frames are given up at once.
   */
  async settle(ms: number): Promise<void> {
    if (this.wait.size > 0 && ms > 0 && !this.connection.isClosed()) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          timer.cancel();
          this.whenEmpty.delete(done);
          resolve();
        };
        const timer = this.clock.setTimeout(done, ms);
        this.whenEmpty.add(done);
      });
    }
    for (const held of this.wait.takeAll()) this.gaveUp(held, 'serving stopped before the connection came back');
  }

  /** Stops following the connection; nothing waits any more (call after `settle`). */
  stop(): void {
    this.stopWatching();
    this.wait.clear();
    this.bytes = 0;
  }

  /** The connection is back: what waited goes, in order. */
  private sendHeld(): void {
    for (const held of this.wait.takeAll()) {
      this.bytes -= held.body.byteLength;
      try {
        this.connection.publish(held.subject, held.body, held.options);
        this.flush.published();
      } catch (error) {
        this.report(held, new LocalError('ConnectionClosed', `The NATS connection closed: ${describe(held.message)} was not sent`, { cause: error }), 'the NATS connection closed');
      }
    }
    this.emptied();
  }

  private gaveUp(held: Held, why: string, counted = true): void {
    if (counted) this.bytes -= held.body.byteLength;
    this.report(held, new LocalError('TransportFailed', `The NATS connection is down (reconnecting): ${describe(held.message)} was not sent (${why})`), `the NATS connection is down (reconnecting): ${why}`);
    if (this.wait.size === 0) this.emptied();
  }

  private report(held: Held, error: LocalError, why: string): void {
    if (!held.sender.isClosed) return held.sender.undelivered(held.message, error);
    if (this.unheard.push({ what: describe(held.message), why }) === 1) queueMicrotask(() => this.warnOperator());
  }

  /** One warning for the turn: "3 messages of closed sessions were not sent (the answer to request 2, ...): why". */
  private warnOperator(): void {
    const unheard = this.unheard;
    this.unheard = [];
    const counts = new Map<string, number>();
    for (const { what } of unheard) counts.set(what, (counts.get(what) ?? 0) + 1);
    const named = Array.from(counts, ([what, count]) => (count === 1 ? what : `${what} ×${count}`));
    const listed = named.length > 5 ? `${named.slice(0, 5).join(', ')} and more` : named.join(', ');
    const reasons = Array.from(new Set(unheard.map(({ why }) => why))).join('; ');
    process.emitWarning(`${unheard.length} message(s) of closed sessions were not sent (${listed}): ${reasons}`, { type: 'RxmcpNatsUndeliveredWarning' });
  }

  private emptied(): void {
    for (const done of Array.from(this.whenEmpty)) done();
  }
}

/** "the answer to request 7", "the notifications/progress notification", "the sampling/createMessage request". */
function describe(message: JsonRpcMessage): string {
  const what = classify(message);
  if (what.kind === 'request' || what.kind === 'notification') return `the ${what.message.method} ${what.kind}`;
  if (what.kind === 'response') return what.message.id === undefined ? 'an error answer' : `the answer to request ${JSON.stringify(what.message.id)}`;
  return 'a message';
}
