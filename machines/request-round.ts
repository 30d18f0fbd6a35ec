/**
 * A multi round-trip request (2026-07-28) as an XState v5 machine:
 *
 *   dispatched --INPUT_REQUIRED--> inputRequired --ANSWERED--> retried --INPUT_REQUIRED--> inputRequired ...
 *   dispatched | retried --COMPLETE--> complete
 *   any live state --CANCEL--> cancelled;  --FAIL / BAD_RESULT / ROUND_LIMIT--> failed
 *
 * `dispatched` and `retried` have a round in flight (tag `in-flight`); in `inputRequired` the input requests
 * are being answered (tag `awaiting-input`). `complete`, `failed` and `cancelled` are final: a cancelled round
 * never completes, a complete one is never cancelled.
 *
 * Both sides step it. The client (client/rounds.ts) drives a whole request through its rounds. A server
 * keeps nothing between rounds, so it steps one round (actors/modern/input-round.ts): a request that carries
 * answers starts in `retried`, and its first unanswered need moves it to `inputRequired`, which is when the
 * `input_required` answer is gathered.
 *
 * The machine has no context: the round count and the limit are the driver's data, and the driver reports
 * "the server needs input once more than allowed" as ROUND_LIMIT. Drivers keep a snapshot, never an actor: the
 * server's round is a host of the one executor (machines/executor.ts, {@link roundRunner}), so the session's
 * inspection hook sees its steps; the client steps its snapshot with {@link stepRound} (the same memoised steps).
 */
import { setup, type SnapshotFrom } from 'xstate';
import { type MachineRunner, machineRunner } from './executor.ts';

export type RoundEvent =
  /** The round's answer is a final result (`resultType: "complete"`, or none from a legacy server). */
  | { readonly type: 'COMPLETE' }
  /** The round's answer is `input_required` (server: the handler needs an answer it was not given). */
  | { readonly type: 'INPUT_REQUIRED' }
  /** The answer is `input_required` once more than the driver allows. */
  | { readonly type: 'ROUND_LIMIT' }
  /** The answer has a `resultType` nobody knows. */
  | { readonly type: 'BAD_RESULT' }
  /** Every input request has its answer: the request goes out again with them. */
  | { readonly type: 'ANSWERED' }
  /** The round failed: an error answer, a malformed input request, an input handler that threw. */
  | { readonly type: 'FAIL' }
  /** The caller stopped waiting (or the request was cancelled). */
  | { readonly type: 'CANCEL' };

export type RoundTag = 'in-flight' | 'awaiting-input' | 'settled';

const round = setup({ types: { events: {} as RoundEvent, tags: {} as RoundTag } });

/** What a round in flight may turn into. */
const inFlight = {
  tags: ['in-flight'] as RoundTag[],
  on: {
    COMPLETE: 'complete',
    INPUT_REQUIRED: 'inputRequired',
    ROUND_LIMIT: 'failed',
    BAD_RESULT: 'failed',
    FAIL: 'failed',
    CANCEL: 'cancelled',
  },
} as const;

const settled = { type: 'final', tags: ['settled'] as RoundTag[] } as const;

export const requestRoundMachine = round.createMachine({
  id: 'mcp-request-round',
  initial: 'dispatched',
  states: {
    dispatched: inFlight,
    inputRequired: {
      tags: ['awaiting-input'],
      on: { ANSWERED: 'retried', FAIL: 'failed', CANCEL: 'cancelled' },
    },
    retried: inFlight,
    complete: settled,
    failed: settled,
    cancelled: settled,
  },
});

export type RoundSnapshot = SnapshotFrom<typeof requestRoundMachine>;
export type RoundState = 'dispatched' | 'inputRequired' | 'retried' | 'complete' | 'failed' | 'cancelled';

/** The machine made ready for the executor, once: every round steps through it (memoised, interned snapshots). */
export const roundRunner: MachineRunner<RoundSnapshot, never, never, RoundEvent> = machineRunner<RoundSnapshot, never, never, RoundEvent>(requestRoundMachine);

/** A new request: `dispatched` (one shared object). */
export const initialRound: RoundSnapshot = roundRunner.initial;

/** A request that arrives with the answers of an earlier round (server side): `retried`. */
export const retriedRound: RoundSnapshot = stepRound(stepRound(initialRound, { type: 'INPUT_REQUIRED' }), { type: 'ANSWERED' });

/** Steps a round purely; an event its state does not accept leaves it as it is (the same object). */
export function stepRound(snapshot: RoundSnapshot, event: RoundEvent): RoundSnapshot {
  return roundRunner.step(snapshot, event).snapshot;
}

export function roundState(snapshot: RoundSnapshot): RoundState {
  return snapshot.value as RoundState;
}
