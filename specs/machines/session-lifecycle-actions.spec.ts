/**
 * The lifecycle machines declare their entry and exit effects as named actions; the session performs them.
 * First the declarations themselves (which step implies which actions, read through the memoised stepping the
 * session uses), then what a real session does for them at its port: the transport hears the negotiated
 * revision (or the refusal) from the session, and an exchange the medium closes as a cancellation cancels the
 * request on it, in the legacy era too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Subject } from 'rxjs';
import type { LegacyRevision } from '../../core/protocol/versions.ts';
import type { InboundFrame, OutboundFrame, Transport } from '../../core/transport.ts';
import {
  type LifecycleEvent,
  type LifecycleMachine,
  clientLifecycleMachine,
  initialLifecycle,
  lifecycleStep,
  serverLifecycleMachine,
} from '../../machines/session-lifecycle.ts';
import { createSessionAcceptor } from '../../server/session-acceptor.ts';
import { within } from '../support/harness.ts';

const EVENTS: readonly LifecycleEvent['type'][] = ['INITIALIZE', 'INITIALIZED', 'MODERN', 'HANDSHAKE_FAILED', 'CLOSE', 'DRAINED', 'FLUSHED', 'ENDED', 'TRANSPORT_CLOSED'];

/** A state value as one name: `operating`, or `shuttingDown.flushing` for a phase of shutting down. */
const phaseOf = (value: unknown): string => (typeof value === 'string' ? value : Object.entries(value as Record<string, unknown>).map(([top, sub]) => `${top}.${phaseOf(sub)}`)[0] ?? '');

/** Every transition of a machine that changes its state, as `from EVENT -> to: actions`. */
function transitions(machine: LifecycleMachine): string[] {
  const lines: string[] = [];
  const seen = new Set<unknown>();
  const todo = [initialLifecycle(machine)];
  while (todo.length > 0) {
    const snapshot = todo.pop();
    if (snapshot === undefined || seen.has(snapshot)) continue;
    seen.add(snapshot);
    for (const type of EVENTS) {
      const step = lifecycleStep(machine, snapshot, { type });
      if (step.snapshot === snapshot) {
        assert.deepEqual(step.actions, [], `${phaseOf(snapshot.value)} ${type}: an ignored event runs nothing`);
        continue;
      }
      lines.push(`${phaseOf(snapshot.value)} ${type} -> ${phaseOf(step.snapshot.value)}: ${step.actions.join(',')}`);
      todo.push(step.snapshot);
    }
  }
  return lines.sort();
}

test('lifecycle actions - the server machine declares what entering and leaving each state does', () => {
  assert.deepEqual(transitions(serverLifecycleMachine), [
    'awaitingInitialize CLOSE -> shuttingDown.draining: signalShutdown,awaitDrain',
    'awaitingInitialize INITIALIZE -> awaitingInitialized: announceRevision',
    'awaitingInitialize MODERN -> stateless: ',
    'awaitingInitialize TRANSPORT_CLOSED -> closed: release',
    'awaitingInitialized CLOSE -> shuttingDown.draining: signalShutdown,awaitDrain',
    'awaitingInitialized INITIALIZED -> operating: releaseDeferred,startKeepalive',
    'awaitingInitialized TRANSPORT_CLOSED -> closed: release',
    'operating CLOSE -> shuttingDown.draining: stopKeepalive,signalShutdown,awaitDrain',
    'operating TRANSPORT_CLOSED -> closed: stopKeepalive,release',
    'shuttingDown.draining DRAINED -> shuttingDown.flushing: answerUnfinished,awaitFlush',
    'shuttingDown.draining TRANSPORT_CLOSED -> closed: release',
    'shuttingDown.ending ENDED -> closed: release',
    'shuttingDown.ending TRANSPORT_CLOSED -> closed: release',
    'shuttingDown.flushing FLUSHED -> shuttingDown.ending: endInFlight',
    'shuttingDown.flushing TRANSPORT_CLOSED -> closed: release',
    'stateless CLOSE -> shuttingDown.draining: signalShutdown,awaitDrain',
    'stateless TRANSPORT_CLOSED -> closed: release',
  ]);
});

test('lifecycle actions - the client machine declares the same effects, without a revision to announce', () => {
  assert.deepEqual(transitions(clientLifecycleMachine), [
    'initializing CLOSE -> shuttingDown.draining: signalShutdown,awaitDrain',
    'initializing HANDSHAKE_FAILED -> shuttingDown.stopping: signalShutdown',
    'initializing INITIALIZED -> operating: releaseDeferred,startKeepalive',
    'initializing TRANSPORT_CLOSED -> closed: release',
    'operating CLOSE -> shuttingDown.draining: stopKeepalive,signalShutdown,awaitDrain',
    'operating TRANSPORT_CLOSED -> closed: stopKeepalive,release',
    'shuttingDown.draining DRAINED -> shuttingDown.flushing: answerUnfinished,awaitFlush',
    'shuttingDown.draining TRANSPORT_CLOSED -> closed: release',
    'shuttingDown.ending ENDED -> closed: release',
    'shuttingDown.ending TRANSPORT_CLOSED -> closed: release',
    'shuttingDown.flushing FLUSHED -> shuttingDown.ending: endInFlight',
    'shuttingDown.flushing TRANSPORT_CLOSED -> closed: release',
    'shuttingDown.stopping CLOSE -> shuttingDown.draining: awaitDrain',
    'shuttingDown.stopping TRANSPORT_CLOSED -> closed: release',
  ]);
});

test('lifecycle actions - a step is computed once: the same step returns the same snapshot and action list', () => {
  const from = initialLifecycle(serverLifecycleMachine);
  const first = lifecycleStep(serverLifecycleMachine, from, { type: 'INITIALIZE' });
  const again = lifecycleStep(serverLifecycleMachine, from, { type: 'INITIALIZE' });
  assert.equal(again, first);
  assert.ok(Object.isFrozen(first.actions));
});

/** A transport that records what the session tells it and lets the test push frames in. */
function listeningTransport(): { transport: Transport; inbound: Subject<InboundFrame>; sent: OutboundFrame[]; told: Array<LegacyRevision | undefined> } {
  const inbound = new Subject<InboundFrame>();
  const sent: OutboundFrame[] = [];
  const told: Array<LegacyRevision | undefined> = [];
  const transport: Transport = {
    kind: 'scripted',
    incoming$: inbound.asObservable(),
    send: (frame) => void sent.push(frame),
    close: async () => inbound.complete(),
    negotiated: (revision) => void told.push(revision),
  };
  return { transport, inbound, sent, told };
}

const initialize = (id: number, params: Record<string, unknown>): InboundFrame => ({ type: 'message', payload: { jsonrpc: '2.0', id, method: 'initialize', params } });
const validParams = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } };

test('lifecycle actions - the transport hears the negotiated revision from the session, once, before the answer goes out', async () => {
  const { transport, inbound, sent, told } = listeningTransport();
  const session = createSessionAcceptor({ serverInfo: { name: 's', version: '1' }, capabilities: {} }).accept(transport);
  let toldBeforeAnswer: number | undefined;
  const send = transport.send.bind(transport);
  (transport as { send: Transport['send'] }).send = (frame) => {
    toldBeforeAnswer ??= told.length;
    return send(frame);
  };
  inbound.next(initialize(1, validParams));
  assert.deepEqual(told, ['2025-06-18']);
  assert.equal(toldBeforeAnswer, 1, 'the revision was announced before the answer was sent');
  inbound.next({ type: 'message', payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  assert.equal(session.state, 'operating');
  assert.deepEqual(told, ['2025-06-18'], 'operating announces nothing more');
  assert.equal(sent.length, 1);
  await session.close();
});

test('lifecycle actions - a refused initialize is told to the transport as no revision, and the session still waits', async () => {
  const { transport, inbound, sent, told } = listeningTransport();
  const session = createSessionAcceptor({ serverInfo: { name: 's', version: '1' }, capabilities: {} }).accept(transport);
  inbound.next(initialize(1, { protocolVersion: 7 }));
  assert.deepEqual(told, [undefined]);
  assert.equal((sent[0]?.payload as { error?: { code: number } }).error?.code, -32602);
  assert.equal(session.state, 'awaitingInitialize');
  inbound.next(initialize(2, validParams));
  assert.deepEqual(told, [undefined, '2025-06-18']);
  await session.close();
});

test('lifecycle actions - a preinitialized session announces its revision when it is accepted', async () => {
  const { transport, told } = listeningTransport();
  const session = createSessionAcceptor({ serverInfo: { name: 's', version: '1' }, capabilities: {} }).accept(transport, {
    preinitialized: { revision: '2025-03-26', peerCapabilities: {} },
  });
  assert.deepEqual(told, ['2025-03-26']);
  await session.close();
});

/** A server session with one tool-like handler that runs until aborted, and reports the abort. */
function hangingSession(): { inbound: Subject<InboundFrame>; sent: OutboundFrame[]; aborted: Promise<unknown>; session: { close(): Promise<void> } } {
  const { transport, inbound, sent } = listeningTransport();
  let reportAbort!: (reason: unknown) => void;
  const aborted = new Promise<unknown>((resolve) => (reportAbort = resolve));
  const session = createSessionAcceptor({
    serverInfo: { name: 's', version: '1' },
    capabilities: { tools: {} },
    handlers: {
      requests: new Map([['tools/list', (_params, context) => new Promise(() => context.signal.addEventListener('abort', () => reportAbort(context.signal.reason)))]]),
      notifications: new Map(),
    },
  }).accept(transport, { preinitialized: { revision: '2025-06-18', peerCapabilities: {} } });
  return { inbound, sent, aborted, session };
}

test('lifecycle actions - an exchange the medium closes as a cancellation cancels its legacy request, silently', async () => {
  const { inbound, sent, aborted, session } = hangingSession();
  inbound.next({ type: 'message', payload: { jsonrpc: '2.0', id: 5, method: 'tools/list' }, exchange: 'reply-5' });
  inbound.next({ type: 'exchange-closed', exchange: 'reply-5', cancels: true });
  const reason = await within(aborted, undefined, 'the handler to be aborted');
  assert.match(String((reason as Error).message), /cancelled/);
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(sent, [], 'a cancelled request is not answered');
  await session.close();
});

test('lifecycle actions - a closed exchange that does not cancel leaves a legacy request running', async () => {
  const { inbound, aborted, session } = hangingSession();
  inbound.next({ type: 'message', payload: { jsonrpc: '2.0', id: 5, method: 'tools/list' }, exchange: 'stream-1' });
  inbound.next({ type: 'exchange-closed', exchange: 'stream-1' });
  const outcome = await Promise.race([aborted.then(() => 'aborted'), new Promise((resolve) => setTimeout(() => resolve('running'), 20))]);
  assert.equal(outcome, 'running');
  await session.close();
});
