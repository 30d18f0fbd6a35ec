/**
 * The request round machine (machines/request-round.ts), path by path with @xstate/graph: first the model
 * (every simple path keeps the invariants, the lean stepper agrees with XState and shares its snapshots),
 * then the client's round driver (client/rounds.ts) pushed along every simple path by a scripted server,
 * its observable behaviour checked in each state the machine says it is in.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestModel, getAdjacencyMap, getSimplePaths } from '@xstate/graph';
import { Subject, type Subscription } from 'rxjs';
import type { RequestEvent } from '../../actors/handler-types.ts';
import { RequestInputRound } from '../../actors/modern/input-round.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import { withInputRounds } from '../../client/rounds.ts';
import {
  type RoundEvent,
  type RoundSnapshot,
  type RoundState,
  initialRound,
  requestRoundMachine,
  retriedRound,
  roundState,
  stepRound,
} from '../../machines/request-round.ts';
import type { RequestEnvelope } from '../../core/protocol/modern.ts';

const EVENTS: readonly RoundEvent[] = [
  { type: 'COMPLETE' },
  { type: 'INPUT_REQUIRED' },
  { type: 'ROUND_LIMIT' },
  { type: 'BAD_RESULT' },
  { type: 'ANSWERED' },
  { type: 'FAIL' },
  { type: 'CANCEL' },
];
const FINAL: readonly RoundState[] = ['complete', 'failed', 'cancelled'];
const ALL: readonly RoundState[] = ['dispatched', 'inputRequired', 'retried', ...FINAL];

const valueOf = (snapshot: { readonly value: unknown }): RoundState => snapshot.value as RoundState;

function replay(events: readonly RoundEvent['type'][]): RoundSnapshot {
  let snapshot = initialRound;
  for (const type of events) snapshot = stepRound(snapshot, { type });
  return snapshot;
}

describe('request round machine: every path', () => {
  const paths = getSimplePaths(requestRoundMachine, { events: [...EVENTS] });

  test('reaches every state, and each final one', () => {
    const reached = new Set(paths.map((path) => valueOf(path.state)));
    assert.deepEqual([...reached].sort(), [...ALL].sort());
  });

  test('the lean stepper agrees with XState at every step and hands out one snapshot per state', () => {
    for (const path of paths) {
      const events = path.steps.slice(1).map((step) => step.event.type);
      const states = path.steps.map((step) => valueOf(step.state));
      let snapshot = initialRound;
      assert.equal(roundState(snapshot), states[0]);
      events.forEach((type, index) => {
        snapshot = stepRound(snapshot, { type });
        assert.equal(roundState(snapshot), states[index + 1], `${events.join(' ')}: step ${index + 1}`);
      });
      assert.equal(replay(events), snapshot, 'the same state is the same object');
    }
  });

  test('a settled round never moves again: a cancelled one never completes, a complete one is never cancelled', () => {
    for (const path of paths.filter((p) => p.state.status === 'done')) {
      const events = path.steps.slice(1).map((step) => step.event.type);
      const settled = replay(events);
      assert.ok(FINAL.includes(roundState(settled)));
      assert.ok(settled.hasTag('settled'));
      for (const event of EVENTS) assert.equal(stepRound(settled, event), settled, `${roundState(settled)} ignores ${event.type}`);
    }
  });

  test('every live state can settle, a retry follows only answers, input is asked only of a round in flight', () => {
    const adjacency = getAdjacencyMap(requestRoundMachine, { events: [...EVENTS] });
    for (const { state, transitions } of Object.values(adjacency)) {
      const from = valueOf(state);
      const moves = Object.values(transitions) as { readonly event: RoundEvent; readonly state: RoundSnapshot }[];
      for (const { event, state: next } of moves) {
        const to = valueOf(next);
        if (to === from) continue;
        if (to === 'retried') assert.deepEqual([from, event.type], ['inputRequired', 'ANSWERED']);
        if (to === 'inputRequired') assert.ok(state.hasTag('in-flight'), `${from} -> inputRequired`);
        if (to === 'complete') assert.ok(state.hasTag('in-flight'), `${from} -> complete`);
      }
      if (state.status === 'done') continue;
      const cancelled = moves.find(({ event }) => event.type === 'CANCEL');
      assert.equal(cancelled === undefined ? undefined : valueOf(cancelled.state), 'cancelled', `${from} can be cancelled`);
    }
  });

  test('tags say what a state is doing', () => {
    for (const state of ALL) {
      const snapshot = state === 'dispatched' ? initialRound : state === 'retried' ? retriedRound : undefined;
      if (snapshot === undefined) continue;
      assert.ok(snapshot.hasTag('in-flight'));
      assert.ok(!snapshot.hasTag('awaiting-input'));
    }
    assert.ok(stepRound(initialRound, { type: 'INPUT_REQUIRED' }).hasTag('awaiting-input'));
  });
});

// --- the client driver along every path -----------------------------------------------------------------

const elicit = { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } } };
const accepted = { action: 'accept', content: {} };

/** A scripted server and a caller around one `withInputRounds` request. */
class RoundScript {
  readonly sends: Subject<RequestEvent<JsonObject>>[] = [];
  readonly extras: (JsonObject | undefined)[] = [];
  readonly signals: AbortSignal[] = [];
  readonly results: JsonObject[] = [];
  outcome: 'open' | 'complete' | 'error' = 'open';
  error: unknown;
  private answer: { resolve(value: JsonObject): void; reject(error: unknown): void } | undefined;
  private readonly subscription: Subscription;

  constructor(maxRounds: number) {
    const send = (extra: JsonObject | undefined): Subject<RequestEvent<JsonObject>> => {
      const round = new Subject<RequestEvent<JsonObject>>();
      this.sends.push(round);
      this.extras.push(extra);
      return round;
    };
    const answer = (_method: string, _params: JsonObject | undefined, signal: AbortSignal): Promise<JsonObject> => {
      this.signals.push(signal);
      return new Promise<JsonObject>((resolve, reject) => (this.answer = { resolve, reject }));
    };
    this.subscription = withInputRounds<JsonObject>(send, answer, maxRounds).subscribe({
      next: (event) => {
        if (event.type === 'result') this.results.push(event.result);
      },
      error: (error: unknown) => {
        this.outcome = 'error';
        this.error = error;
      },
      complete: () => (this.outcome = 'complete'),
    });
  }

  private get current(): Subject<RequestEvent<JsonObject>> {
    const round = this.sends.at(-1);
    assert.ok(round !== undefined);
    return round;
  }

  get waitingForAnswer(): boolean {
    return this.answer !== undefined;
  }

  reply(result: JsonObject): void {
    this.current.next({ type: 'result', result });
    this.current.complete();
  }

  needInput(): void {
    this.reply({ resultType: 'input_required', inputRequests: { 'elicitation-1': elicit }, requestState: `state-${this.sends.length}` });
  }

  answerInput(): void {
    const answer = this.answer;
    this.answer = undefined;
    answer?.resolve(accepted);
  }

  fail(): void {
    const answer = this.answer;
    this.answer = undefined;
    if (answer !== undefined) answer.reject(new Error('the input handler failed'));
    else this.current.error(new Error('the round failed'));
  }

  cancel(): void {
    this.subscription.unsubscribe();
  }
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** The round in which ROUND_LIMIT happens is the last one allowed; without one, the default limit. */
function maxRoundsFor(events: readonly RoundEvent['type'][]): number {
  const limit = events.indexOf('ROUND_LIMIT');
  return limit < 0 ? 16 : 1 + events.slice(0, limit).filter((type) => type === 'ANSWERED').length;
}

describe('client round driver: every path of the machine', () => {
  const model = createTestModel(requestRoundMachine, { events: [...EVENTS] });
  for (const path of model.getSimplePaths()) {
    const events = path.steps.slice(1).map((step) => step.event.type);
    test(`${events.join(' -> ') || '(initial)'} ends ${valueOf(path.state)}`, async () => {
      const script = new RoundScript(maxRoundsFor(events));
      let rounds = 1;
      await path.test({
        events: {
          COMPLETE: () => script.reply({ resultType: 'complete', content: [] }),
          INPUT_REQUIRED: async () => {
            script.needInput();
            await settle();
          },
          ROUND_LIMIT: () => script.needInput(),
          BAD_RESULT: () => script.reply({ resultType: 'mystery' }),
          ANSWERED: async () => {
            script.answerInput();
            await settle();
            rounds++;
          },
          FAIL: async () => {
            script.fail();
            await settle();
          },
          CANCEL: () => script.cancel(),
        },
        states: {
          dispatched: () => {
            assert.equal(script.sends.length, 1);
            assert.equal(script.extras[0], undefined);
            assert.equal(script.outcome, 'open');
          },
          inputRequired: () => {
            assert.equal(script.outcome, 'open');
            assert.ok(script.waitingForAnswer, 'the input handler runs');
            assert.equal(script.sends.length, rounds);
          },
          retried: () => {
            assert.equal(script.outcome, 'open');
            assert.equal(script.sends.length, rounds);
            // The retry carries the answers and echoes the server's state byte for byte.
            assert.deepEqual(script.extras.at(-1), { inputResponses: { 'elicitation-1': accepted }, requestState: `state-${rounds - 1}` });
          },
          complete: () => {
            assert.equal(script.outcome, 'complete');
            assert.deepEqual(script.results, [{ resultType: 'complete', content: [] }]);
          },
          failed: () => {
            assert.equal(script.outcome, 'error');
            assert.deepEqual(script.results, []);
          },
          cancelled: async () => {
            assert.equal(script.outcome, 'open', 'a cancelled round neither completes nor errors');
            assert.ok(script.sends.every((round) => !round.observed), 'nothing is listened to any more');
            assert.ok(script.signals.every((signal) => signal.aborted), 'running input handlers are aborted');
            // An answer arriving after the cancel sends nothing.
            const sent = script.sends.length;
            script.answerInput();
            await settle();
            assert.equal(script.sends.length, sent);
            assert.equal(script.outcome, 'open');
          },
        },
      });
    });
  }
});

// --- the server's round -----------------------------------------------------------------------------------

const envelope = {
  revision: '2026-07-28',
  clientInfo: { name: 'spec', version: '1' },
  clientCapabilities: { elicitation: { form: {} } },
} as unknown as RequestEnvelope;

describe('server input round: steps the same machine', () => {
  test('the needs of one turn make one input_required answer; an answered need asks nothing', async () => {
    const answers: JsonObject[] = [];
    const round = new RequestInputRound(envelope, { 'elicitation-1': accepted }, 1);
    // Copied as it is written to the wire when it is answered.
    round.attach({ seal: (inputs) => JSON.stringify(inputs), answer: (result) => answers.push(structuredClone(result)) });
    assert.deepEqual(await round.ask('elicitation/create', elicit.params), accepted);
    void round.ask('elicitation/create', elicit.params);
    void round.ask('elicitation/create', elicit.params);
    await settle();
    void round.ask('elicitation/create', elicit.params);
    await settle();
    assert.equal(answers.length, 1, 'one answer for the round, later needs are not sent again');
    assert.deepEqual(Object.keys(answers[0]?.['inputRequests'] as JsonObject), ['elicitation-2', 'elicitation-3']);
    assert.deepEqual(JSON.parse(answers[0]?.['requestState'] as string), { answers: { 'elicitation-1': accepted }, round: 2 });
  });

  test('a round whose handler needs nothing never answers input_required', async () => {
    const answers: JsonObject[] = [];
    const round = new RequestInputRound(envelope, {}, 0);
    round.attach({ seal: () => 'sealed', answer: (result) => answers.push(result) });
    round.flush();
    await settle();
    assert.deepEqual(answers, []);
  });
});
