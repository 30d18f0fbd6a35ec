/**
 * The life of one request we send, as an XState v5 machine (actors/outgoing-request.ts steps it):
 *
 *   created --SEND--> sent --ANSWER--> answered
 *      |               |   --REJECTED (an error answer) | FAIL (the session ended)--> failed
 *      |               |   --ABORT--> cancelled   (sendCancel: "aborted by the requester")
 *      |               |   --TIMEOUT--> timedOut  (sendCancel: "timeout")
 *      |               sent = pending --PROGRESS--> progressing (a valid progress report; again: still progressing)
 *      +--DEFER--> deferred (waits for the handshake) --SEND--> sent;  --ABORT--> cancelled (cancelDeferral)
 *   created | deferred --FAIL--> failed (refused, the deferral refused, the session ended);  created --ABORT--> cancelled
 *
 * `answered`, `failed`, `cancelled` and `timedOut` are final (tag `settled`): a request ends exactly once. The
 * request is in the session's table of awaited answers exactly while it is `sent` (tag `sent`: entering sends it,
 * leaving forgets it), so no answer, progress report or timeout reaches it in any other state.
 *
 * The timeout is not an `after` delay here: a timer per request would cost every call a timer armed and cleared,
 * where the session keeps one deadline sweep for all its requests (actors/request-deadlines.ts), which sends
 * TIMEOUT. The machine has no context; its snapshots are interned (machines/executor.ts), so a step allocates
 * nothing and a request holds a pointer. Every action is performed by the executor with the implementations of
 * actors/outgoing-request.ts (`OutgoingRequest`, its "machine actions" section), checked by type against these
 * declarations.
 */
import { setup, type SnapshotFrom } from 'xstate';
import { type DeclaredActions, type MachineRunner, executed, machineRunner } from './executor.ts';

export type OutgoingEvent =
  /** The request may go now: it is written and awaits its answer. */
  | { readonly type: 'SEND' }
  /** The request waits for the handshake to complete. */
  | { readonly type: 'DEFER' }
  /** A valid progress report arrived (malformed or non-increasing ones are dropped before). */
  | { readonly type: 'PROGRESS' }
  /** The result arrived. */
  | { readonly type: 'ANSWER' }
  /** An error answer arrived. */
  | { readonly type: 'REJECTED' }
  /** The caller stopped waiting (unsubscribed, aborted its signal). */
  | { readonly type: 'ABORT' }
  /** The request's deadline passed with no answer. */
  | { readonly type: 'TIMEOUT' }
  /** It cannot go or be answered: refused before sending, its deferral refused, or the session ended. */
  | { readonly type: 'FAIL' };

export type OutgoingTag = 'sent' | 'settled';

const performed = executed<undefined>('an outgoing request');

const outgoing = setup({
  types: { events: {} as OutgoingEvent, tags: {} as OutgoingTag },
  actions: {
    /** Registers the request as awaiting its answer, sets its deadline, and writes it. */
    send: performed,
    /** No answer is awaited any more: the request leaves the session's table. */
    forget: performed,
    /** The peer is told to stop (`notifications/cancelled` with the reason), unless the request may not be cancelled. */
    sendCancel: executed<{ readonly reason: 'timeout' | 'aborted by the requester' }>('an outgoing request'),
    /** A request that waited for the handshake no longer does. */
    cancelDeferral: performed,
    /** The request ended: what it listened to (the caller's abort signal) is let go. */
    release: performed,
  },
});

const settled = { type: 'final', tags: ['settled'] as OutgoingTag[], entry: ['release'] } as const;

export const outgoingRequestMachine = outgoing.createMachine({
  id: 'mcp-outgoing-request',
  initial: 'created',
  states: {
    created: { on: { SEND: 'sent', DEFER: 'deferred', ABORT: 'cancelled', FAIL: 'failed' } },
    deferred: { on: { SEND: 'sent', ABORT: { target: 'cancelled', actions: ['cancelDeferral'] }, FAIL: 'failed' } },
    sent: {
      tags: ['sent'],
      entry: ['send'],
      exit: ['forget'],
      initial: 'pending',
      states: {
        pending: { on: { PROGRESS: 'progressing' } },
        progressing: { on: { PROGRESS: 'progressing' } },
      },
      on: {
        ANSWER: 'answered',
        REJECTED: 'failed',
        FAIL: 'failed',
        ABORT: { target: 'cancelled', actions: [{ type: 'sendCancel', params: { reason: 'aborted by the requester' } }] },
        TIMEOUT: { target: 'timedOut', actions: [{ type: 'sendCancel', params: { reason: 'timeout' } }] },
      },
    },
    answered: settled,
    failed: settled,
    cancelled: settled,
    timedOut: settled,
  },
});

export type OutgoingSnapshot = SnapshotFrom<typeof outgoingRequestMachine>;
export type OutgoingAction = DeclaredActions<typeof outgoingRequestMachine>;

/** The machine made ready for the executor, once: every request steps through it. */
export const outgoingRequestRunner: MachineRunner<OutgoingSnapshot, OutgoingAction, never, OutgoingEvent> = machineRunner<OutgoingSnapshot, OutgoingAction, never, OutgoingEvent>(outgoingRequestMachine);
