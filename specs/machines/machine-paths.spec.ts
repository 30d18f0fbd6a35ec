/**
 * Every machine of machines/ with @xstate/graph: every reachable state is reached, and every transition (each
 * (state, event) a state accepts) is taken along a path: the shortest path into its source state, then the event.
 * Along each path the executor's memoised step (machines/executor.ts, what sessions and requests run) agrees
 * with XState's own `transition()` on the state reached and on the actions, delays and cancellations it returns.
 * Then the outgoing request's paths are checked for what they produce: its tags, and its actions in order.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adjacencyMapToArray, getAdjacencyMap, getShortestPaths } from '@xstate/graph';
import { type AnyMachineSnapshot, type AnyStateMachine, type EventObject, createActor, transition } from 'xstate';
import { type MachineOp, delayedEventsOf, machineRunner } from '../../machines/executor.ts';
import { type OutgoingEvent, outgoingRequestMachine, outgoingRequestRunner } from '../../machines/outgoing-request.ts';
import { requestRoundMachine } from '../../machines/request-round.ts';
import { clientLifecycleMachine, serverLifecycleMachine } from '../../machines/session-lifecycle.ts';
import { taskLifecycleMachine } from '../../machines/task-lifecycle.ts';

/** A state value as one name: `operating`, or `sent.pending` for a child state. */
const phaseOf = (value: unknown): string => (typeof value === 'string' ? value : Object.entries(value as Record<string, unknown>).map(([top, sub]) => `${top}.${phaseOf(sub)}`)[0] ?? '');

/** Every leaf state a machine declares, as `phaseOf` names them (final children that are left at once excluded). */
function leafStates(machine: AnyStateMachine): string[] {
  const names: string[] = [];
  const visit = (node: AnyStateMachine['root'], path: string[]): void => {
    const children = Object.entries(node.states);
    if (children.length === 0) names.push(path.join('.'));
    for (const [key, child] of children) visit(child, [...path, key]);
  };
  visit(machine.root, []);
  return names;
}

/** What XState's pure step returns as the executor reads it: an action by name, a delay scheduled, one cancelled. */
function xstateOps(machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: EventObject): string[] {
  const [, actions] = transition(machine, snapshot, event);
  return actions.map((executable) => {
    const action = executable as { readonly type: string; readonly params?: unknown };
    const params = action.params as { event?: EventObject; sendId?: string; reason?: string } | undefined;
    if (action.type === 'xstate.raise') return `schedule ${params?.event?.type ?? ''}`;
    if (action.type === 'xstate.cancel') return `cancel ${params?.sendId ?? ''}`;
    return params?.reason === undefined ? action.type : `${action.type}(${params.reason})`;
  });
}

function opName(op: MachineOp): string {
  if (op.kind === 'schedule') return `schedule ${op.event.type}`;
  if (op.kind === 'cancel') return `cancel ${op.id}`;
  const reason = (op.params as { reason?: string } | undefined)?.reason;
  return reason === undefined ? op.name : `${op.name}(${reason})`;
}

interface MachineUnderTest {
  readonly machine: AnyStateMachine;
  readonly events: readonly EventObject[];
  /** Leaf states no path can enter (a child state only another role uses), with why. */
  readonly unreachable?: readonly string[];
}

const lifecycleEvents = (machine: AnyStateMachine): EventObject[] => [
  ...['INITIALIZE', 'INITIALIZED', 'MODERN', 'HANDSHAKE_FAILED', 'CLOSE', 'DRAINED', 'FLUSHED', 'ENDED', 'TRANSPORT_CLOSED'].map((type) => ({ type })),
  ...delayedEventsOf(machine),
];

const MACHINES: Record<string, MachineUnderTest> = {
  'server lifecycle': {
    machine: serverLifecycleMachine,
    events: lifecycleEvents(serverLifecycleMachine),
    // Only a client's failed handshake waits in `stopping`; `ended` is left in the same step (onDone).
    unreachable: ['shuttingDown.stopping', 'shuttingDown.ended'],
  },
  'client lifecycle': { machine: clientLifecycleMachine, events: lifecycleEvents(clientLifecycleMachine), unreachable: ['shuttingDown.ended'] },
  'outgoing request': {
    machine: outgoingRequestMachine,
    events: ['SEND', 'DEFER', 'PROGRESS', 'ANSWER', 'REJECTED', 'ABORT', 'TIMEOUT', 'FAIL'].map((type) => ({ type })),
  },
  'request round': {
    machine: requestRoundMachine,
    events: ['COMPLETE', 'INPUT_REQUIRED', 'ROUND_LIMIT', 'BAD_RESULT', 'ANSWERED', 'FAIL', 'CANCEL'].map((type) => ({ type })),
  },
  'task lifecycle': { machine: taskLifecycleMachine, events: ['WORK', 'NEED_INPUT', 'COMPLETE', 'FAIL', 'CANCEL'].map((type) => ({ type })) },
};

for (const [name, { machine, events, unreachable = [] }] of Object.entries(MACHINES)) {
  describe(`${name}: every state, every transition`, () => {
    const runner = machineRunner<AnyMachineSnapshot, never, never, EventObject>(machine);
    const edges = adjacencyMapToArray(getAdjacencyMap(machine, { events: [...events] })).filter(({ state, event }) => (state as AnyMachineSnapshot).can(event));
    const shortest = getShortestPaths(machine, { events: [...events] });

    test(`${name} - every declared state is reached`, () => {
      const reached = new Set(shortest.map((path) => phaseOf(path.state.value)));
      const declared = leafStates(machine).filter((state) => !unreachable.includes(state));
      assert.deepEqual([...reached].sort(), declared.sort());
    });

    test(`${name} - every transition, taken at the end of the shortest path into its state, agrees with XState`, () => {
      assert.ok(edges.length > 0);
      for (const { state, event, nextState } of edges) {
        const from = phaseOf((state as AnyMachineSnapshot).value);
        const path = shortest.find((candidate) => phaseOf(candidate.state.value) === from);
        assert.ok(path !== undefined, `a path into ${from}`);
        let snapshot = runner.initial;
        for (const step of path.steps.slice(1)) snapshot = runner.step(snapshot, step.event).snapshot;
        assert.equal(phaseOf(snapshot.value), from, 'the runner follows the path');
        const step = runner.step(snapshot, event);
        const label = `${from} ${event.type}`;
        assert.ok(step.accepted, label);
        assert.equal(phaseOf(step.snapshot.value), phaseOf((nextState as AnyMachineSnapshot).value), label);
        assert.deepEqual(step.ops.map(opName), xstateOps(machine, snapshot, event), `${label}: the same actions as XState`);
        assert.deepEqual([...step.snapshot.tags].sort(), [...(nextState as AnyMachineSnapshot).tags].sort(), `${label}: tags`);
        assert.equal(runner.step(snapshot, event), step, `${label}: computed once`);
      }
    });

    test(`${name} - a final state takes no event, and an event a state does not take changes nothing`, () => {
      for (const path of shortest) {
        let snapshot = runner.initial;
        for (const step of path.steps.slice(1)) snapshot = runner.step(snapshot, step.event).snapshot;
        for (const event of events) {
          const step = runner.step(snapshot, event);
          if (snapshot.status === 'done') assert.equal(step.accepted, false, `${phaseOf(snapshot.value)} ${event.type}`);
          if (!step.accepted) {
            assert.equal(step.snapshot, snapshot);
            assert.deepEqual(step.ops, []);
          }
        }
      }
    });
  });
}

describe('outgoing request: what each path produces', () => {
  const walk = (types: readonly OutgoingEvent['type'][]): { states: string[]; ops: string[]; tags: string[][] } => {
    let snapshot = outgoingRequestRunner.initial;
    const states: string[] = [];
    const ops: string[] = [];
    const tags: string[][] = [];
    for (const type of types) {
      const step = outgoingRequestRunner.step(snapshot, { type });
      snapshot = step.snapshot;
      states.push(phaseOf(snapshot.value));
      ops.push(...step.ops.map(opName));
      tags.push([...snapshot.tags].sort());
    }
    return { states, ops, tags };
  };

  test('answered: sent once, progress on the way, forgotten and released when the answer comes', () => {
    assert.deepEqual(walk(['SEND', 'PROGRESS', 'PROGRESS', 'ANSWER']), {
      states: ['sent.pending', 'sent.progressing', 'sent.progressing', 'answered'],
      ops: ['send', 'forget', 'release'],
      tags: [['sent'], ['sent'], ['sent'], ['settled']],
    });
  });

  test('cancelled and timed out: the peer hears why, after the request left the table', () => {
    assert.deepEqual(walk(['SEND', 'ABORT']).ops, ['send', 'forget', 'sendCancel(aborted by the requester)', 'release']);
    assert.deepEqual(walk(['SEND', 'PROGRESS', 'TIMEOUT']).ops, ['send', 'forget', 'sendCancel(timeout)', 'release']);
    assert.deepEqual(walk(['SEND', 'TIMEOUT']).states, ['sent.pending', 'timedOut']);
  });

  test('failed: an error answer or a lost session tells the peer nothing', () => {
    assert.deepEqual(walk(['SEND', 'REJECTED']).ops, ['send', 'forget', 'release']);
    assert.deepEqual(walk(['SEND', 'FAIL']).ops, ['send', 'forget', 'release']);
    assert.deepEqual(walk(['FAIL']), { states: ['failed'], ops: ['release'], tags: [['settled']] });
  });

  test('deferred: sent once the handshake completes, or its deferral let go when aborted first', () => {
    assert.deepEqual(walk(['DEFER', 'SEND', 'ANSWER']).ops, ['send', 'forget', 'release']);
    assert.deepEqual(walk(['DEFER', 'ABORT']), { states: ['deferred', 'cancelled'], ops: ['cancelDeferral', 'release'], tags: [[], ['settled']] });
    assert.deepEqual(walk(['DEFER', 'FAIL']).ops, ['release']);
  });

  test('nothing reaches a request that was not sent: progress, answers and timeouts before SEND change nothing', () => {
    for (const type of ['PROGRESS', 'ANSWER', 'REJECTED', 'TIMEOUT'] as const) {
      assert.equal(outgoingRequestRunner.step(outgoingRequestRunner.initial, { type }).accepted, false, type);
      const deferred = outgoingRequestRunner.step(outgoingRequestRunner.initial, { type: 'DEFER' }).snapshot;
      assert.equal(outgoingRequestRunner.step(deferred, { type }).accepted, false, `deferred ${type}`);
    }
  });
});

describe('session lifecycle: the closing deadlines along the close path', () => {
  test('a close schedules the drain deadline, the drain\'s end cancels it and schedules the flush deadline, the flush\'s end cancels that', () => {
    const runner = machineRunner<AnyMachineSnapshot, never, never, EventObject>(serverLifecycleMachine);
    const drain = 'xstate.after.drainDeadline.mcp-server-session.shuttingDown.draining';
    const flush = 'xstate.after.flushDeadline.mcp-server-session.shuttingDown.flushing';
    let snapshot = runner.step(runner.initial, { type: 'MODERN' }).snapshot;
    const steps = ['CLOSE', 'DRAINED', 'FLUSHED', 'ENDED'].map((type) => {
      const step = runner.step(snapshot, { type });
      snapshot = step.snapshot;
      return step.ops.map(opName);
    });
    assert.deepEqual(steps, [
      ['signalShutdown', 'awaitDrain', `schedule ${drain}`],
      [`cancel ${drain}`, 'answerUnfinished', 'awaitFlush', `schedule ${flush}`],
      [`cancel ${flush}`, 'endInFlight'],
      ['release'],
    ]);
    // A deadline that fires moves on just as its early end does.
    const closing = runner.step(runner.step(runner.initial, { type: 'MODERN' }).snapshot, { type: 'CLOSE' }).snapshot;
    assert.equal(phaseOf(runner.step(closing, { type: drain }).snapshot.value), 'shuttingDown.flushing');
  });
});

test('a started actor is told the executor performs the declared actions (no silent no-op bodies)', () => {
  const actor = createActor(outgoingRequestMachine);
  const errors: unknown[] = [];
  actor.subscribe({ error: (error) => errors.push(error) });
  actor.start();
  actor.send({ type: 'SEND' });
  assert.equal(actor.getSnapshot().status, 'error');
  assert.match(String((errors[0] as Error | undefined)?.message), /performed by machines\/executor\.ts/);
});
