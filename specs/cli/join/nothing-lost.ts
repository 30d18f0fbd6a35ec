/**
 * The nothing-lost scenario of the join: a front that asks at random (requests on five exchanges, batches,
 * notifications, exchanges closed with or without cancelling), a back that behaves at random (answers once, reports
 * undeliverable and may answer late anyway, refuses sends, holds them), then an end (the back ends, or a graceful
 * close with a short drain). Deterministic by seed, so a failure replays.
 */
import { LocalError } from '../../../core/errors.ts';
import { type JoinOptions, join } from '../../../cli/join/join.ts';
import { detail } from '../../../cli/join/undelivered.ts';
import { prng } from '../../support/test-clock.ts';
import { fakeTransport, settle } from '../bridge/fake-transport.ts';

export interface Tally {
  /** Front requests sent. */
  readonly requests: number;
  /** Requests whose exchange the front closed as a cancellation (they need no answer, may have one). */
  readonly cancelled: number;
  /** Requests with no answer that needed one. */
  readonly lost: readonly number[];
  /** Requests answered more than once. */
  readonly doubled: readonly number[];
  /** What the join reported (for a failure's message). */
  readonly reports: readonly string[];
}

const call = (id: number) => ({ jsonrpc: '2.0' as const, id, method: 'tools/call', params: {} });
const words: JoinOptions['words'] = (why, to) => `${why.kind}: ${detail(why, to)}`;

export async function nothingLost(seed: number, rounds = 60): Promise<Tally> {
  const next = prng(seed);
  const front = fakeTransport('front');
  const back = fakeTransport('back');
  const reports: string[] = [];
  const joined = join(front, back, { words, maxQueued: 8, maxInFlight: 24, flushMs: 200, report: (line) => reports.push(line) });
  const sentIds: number[] = [];
  const backAnswered = new Set<number>();
  const backReported = new Set<number>();
  const onExchange = new Map<number, number[]>();
  const cancelled = new Set<number>();
  let id = 0;
  for (let round = 0; round < rounds; round++) {
    // The front asks (one request, a batch, or a notification) ...
    const shape = next();
    if (shape < 0.6) {
      sentIds.push(++id);
      onExchange.set(id % 5, [...(onExchange.get(id % 5) ?? []), id]);
      front.receiveFrame({ type: 'message', payload: call(id), exchange: `x${id % 5}` });
    } else if (shape < 0.8) {
      const batch = [call(++id), call(++id)];
      sentIds.push(id - 1, id);
      front.receive(batch);
    } else {
      front.receive({ jsonrpc: '2.0', method: 'notifications/progress', params: {} });
    }
    // ... and the back does something with what reached it.
    back.mode = next() < 0.1 ? 'refuse' : next() < 0.3 ? 'hold' : 'take';
    const reached = back.sent
      .flatMap((payload) => (Array.isArray(payload) ? payload : [payload]))
      .map((message) => (message as { id?: number }).id)
      .filter((value): value is number => typeof value === 'number');
    const pick = reached[Math.floor(next() * reached.length)];
    const action = next();
    if (pick !== undefined && action < 0.4 && !backAnswered.has(pick)) {
      // A back answers a request once ...
      backAnswered.add(pick);
      back.receive({ jsonrpc: '2.0', id: pick, result: {} });
    } else if (pick !== undefined && action < 0.5 && !backAnswered.has(pick) && !backReported.has(pick)) {
      // ... and may still answer one it reported undeliverable (a late answer).
      backReported.add(pick);
      back.receiveFrame({ type: 'undeliverable', payload: call(pick), error: new LocalError('PeerUnresponsive', 'silent') });
    } else if (action < 0.6) {
      const exchange = Math.floor(next() * 5);
      const cancels = next() < 0.2;
      // The front left the exchange: its requests sent so far need no answer any more.
      if (cancels) for (const request of onExchange.get(exchange) ?? []) cancelled.add(request);
      front.receiveFrame({ type: 'exchange-closed', exchange: `x${exchange}`, cancels });
    }
    if (next() < 0.5) back.held[0]?.release();
    if (next() < 0.2) await settle(1);
  }
  if (seed % 2 === 0) back.end(new LocalError('ConnectionClosed', 'gone'));
  else await joined.close({ drainMs: 20 });
  await joined.done;

  const answers = new Map<number, number>();
  for (const payload of front.sent) {
    for (const message of Array.isArray(payload) ? payload : [payload]) {
      const answered = (message as { id?: number }).id;
      if (typeof answered === 'number') answers.set(answered, (answers.get(answered) ?? 0) + 1);
    }
  }
  return {
    requests: sentIds.length,
    cancelled: cancelled.size,
    lost: sentIds.filter((request) => !answers.has(request) && !cancelled.has(request)),
    doubled: sentIds.filter((request) => (answers.get(request) ?? 0) > 1),
    reports,
  };
}
