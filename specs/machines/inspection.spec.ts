/**
 * The one inspection hook of the machines (machines/executor.ts), shaped like XState's `inspect`: a session given
 * `inspect` sees every lifecycle step as `@xstate.event`, `@xstate.snapshot` (a new state, before its actions)
 * and `@xstate.action` (each declared action, before it runs), with the machine's and the session's id; and the
 * session's `state$` is fed through the same hook, saying each state once (a phase of shutting down is not one).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Subject } from 'rxjs';
import type { InboundFrame, Transport } from '../../core/transport.ts';
import type { MachineInspection } from '../../machines/executor.ts';
import { clientLifecycleMachine } from '../../machines/session-lifecycle.ts';
import { createSessionAcceptor } from '../../server/session-acceptor.ts';
import { SessionCore } from '../../session/session-core.ts';

function transportWithId(sessionId: string): { transport: Transport; inbound: Subject<InboundFrame> } {
  const inbound = new Subject<InboundFrame>();
  const transport: Transport = { kind: 'scripted', sessionId, incoming$: inbound.asObservable(), send: () => undefined, close: async () => inbound.complete() };
  return { transport, inbound };
}

const phaseOf = (value: unknown): string => (typeof value === 'string' ? value : Object.entries(value as Record<string, unknown>).map(([top, sub]) => `${top}.${phaseOf(sub)}`)[0] ?? '');

/** An inspection as one line: `event INITIALIZE @ awaitingInitialize`, `snapshot -> operating`, `action release`. */
function line(inspection: MachineInspection): string {
  switch (inspection.type) {
    case '@xstate.event':
      return `event ${inspection.event.type} @ ${phaseOf(inspection.value)}`;
    case '@xstate.snapshot':
      return `snapshot -> ${phaseOf(inspection.value)}`;
    case '@xstate.action':
      return `action ${inspection.action.type}`;
  }
}

test('inspection - every lifecycle step of a session, in order, with the machine and the session named', async () => {
  const seen: MachineInspection[] = [];
  const { transport, inbound } = transportWithId('s-1');
  const session = createSessionAcceptor({ serverInfo: { name: 's', version: '1' }, capabilities: {} }).accept(transport, { inspect: (inspection) => seen.push(inspection) });
  inbound.next({ type: 'message', payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } });
  inbound.next({ type: 'message', payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  await session.close();
  assert.ok(seen.every((inspection) => inspection.machineId === 'mcp-server-session' && inspection.sessionId === 's-1'));
  assert.deepEqual(seen.map(line), [
    'event INITIALIZE @ awaitingInitialize',
    'snapshot -> awaitingInitialized',
    'action announceRevision',
    'event INITIALIZED @ awaitingInitialized',
    'snapshot -> operating',
    'action releaseDeferred',
    'action startKeepalive',
    'event CLOSE @ operating',
    'snapshot -> shuttingDown.draining',
    'action stopKeepalive',
    'action signalShutdown',
    'action awaitDrain',
    'event DRAINED @ shuttingDown.draining',
    'snapshot -> shuttingDown.flushing',
    'action answerUnfinished',
    'action awaitFlush',
    'event FLUSHED @ shuttingDown.flushing',
    'snapshot -> shuttingDown.ending',
    'action endInFlight',
    'event ENDED @ shuttingDown.ending',
    'snapshot -> closed',
    'action release',
  ]);
});

test('inspection - state$ is fed through the hook: each session state once, the phases of shutting down folded', async () => {
  const { transport, inbound } = transportWithId('s-2');
  const session = createSessionAcceptor({ serverInfo: { name: 's', version: '1' }, capabilities: {} }).accept(transport);
  const states: string[] = [];
  session.state$.subscribe((state) => states.push(state));
  inbound.next({ type: 'message', payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } });
  inbound.next({ type: 'message', payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  await session.close();
  assert.deepEqual(states, ['awaitingInitialize', 'awaitingInitialized', 'operating', 'shuttingDown', 'closed']);
});

test('inspection - an event a state does not take is inspected, and changes nothing', async () => {
  const seen: MachineInspection[] = [];
  const { transport } = transportWithId('c-1');
  const session = new SessionCore('client', transport, clientLifecycleMachine, {}, undefined, undefined, { inspect: (inspection) => seen.push(inspection) });
  session.step({ type: 'MODERN' });
  assert.deepEqual(seen.map(line), ['event MODERN @ initializing']);
  assert.equal(seen[0]?.machineId, 'mcp-client-session');
  assert.equal(session.state, 'initializing');
  await session.close();
});
