/**
 * Multi round-trip requests (2026-07-28), server side. A modern server never sends requests to the client:
 * when a handler needs elicitation, sampling or roots, the request is answered with `input_required`
 * (the input requests plus sealed state) and the client retries with the answers. The handler then runs
 * again from the start; the answers of earlier rounds travel in the sealed state, so every call it made
 * before is answered at once and it reaches its next need (or its result). Any process holding the state
 * key can run a round, because nothing is kept between rounds except what the client carries back.
 */
import { WireError } from '../../core/errors.ts';
import { nextTurn } from '../../core/next-turn.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import { declarationOf } from '../../core/protocol/declarations/index.ts';
import {
  type InputMethod,
  type InputRequest,
  type RequestEnvelope,
  capabilityForInput,
  declaresInput,
  defaultInputKey,
  missingCapabilityError,
} from '../../core/protocol/modern.ts';
import type { MachineHost, MachineInspection, MachineInspector } from '../../machines/executor.ts';
import { type RoundEvent, type RoundSnapshot, initialRound, retriedRound, roundRunner, roundState } from '../../machines/request-round.ts';
import type { InputRound } from '../handler-types.ts';

/** What a round's sealed state holds: every answer the client has given for this request so far. */
export interface SealedInputs {
  readonly answers: { readonly [key: string]: unknown };
  readonly round: number;
}

/** How a round seals its state and delivers its `input_required` answer. */
export interface InputRoundSink {
  seal(inputs: SealedInputs): string;
  /** Answers the request with this result (once); the handler's own outcome is then ignored. */
  answer(result: JsonObject): void;
  /** The session's inspection hook of its machines (the round's steps are told to it), if any. */
  readonly machineInspector?: MachineInspector | undefined;
  readonly inspectionId?: string | undefined;
}

/** A client's answer is untrusted: it must have the shape of the result it stands for (its method's result guard). */
export function answers(method: InputMethod, value: unknown): value is JsonObject {
  return declarationOf(method)?.result?.(value) === true;
}

const never = new Promise<never>(() => undefined);
const NO_ACTIONS = Object.freeze({});

/** A round is a host of the one executor (machines/executor.ts): it holds its snapshot; its machine declares no actions or delays. */
export class RequestInputRound implements InputRound, MachineHost<RoundSnapshot, never> {
  /**
   * Where this round stands in the request round machine: `dispatched`, or `retried` when the client brought
   * answers; `inputRequired` once the handler needs one it was not given.
   */
  private snapshot: RoundSnapshot;
  private pending: Record<string, InputRequest> | undefined;
  private readonly counters = new Map<InputMethod, number>();
  private readonly used: Record<string, unknown> = {};
  private sink: InputRoundSink | undefined;
  /** Set when interceptors run the handler: the `input_required` answer is then the result of their chain. */
  private diverted: ((result: JsonObject) => void) | undefined;

  constructor(
    private readonly envelope: RequestEnvelope,
    private readonly given: { readonly [key: string]: unknown },
    readonly round: number,
  ) {
    this.snapshot = round > 0 ? retriedRound : initialRound;
  }

  // --- the executor's host: no actions, no delays; inspected through the request's session ----------------

  readonly actions = NO_ACTIONS;
  declare scheduled: undefined;

  get clock(): undefined {
    return undefined;
  }

  machineSnapshot(): RoundSnapshot {
    return this.snapshot;
  }

  enterSnapshot(snapshot: RoundSnapshot): void {
    this.snapshot = snapshot;
  }

  delayOf(name: never): number {
    return name;
  }

  get inspected(): boolean {
    return this.sink?.machineInspector !== undefined;
  }

  inspect(inspection: MachineInspection): void {
    this.sink?.machineInspector?.(inspection);
  }

  get inspectionId(): string | undefined {
    return this.sink?.inspectionId;
  }

  private step(event: RoundEvent): void {
    roundRunner.run(this, event);
  }

  /** Connects the round to the request it belongs to (they are created together). */
  attach(sink: InputRoundSink): void {
    this.sink = sink;
  }

  /** Delivers the `input_required` answer to `answer` instead of the request (interceptors see it as the result). */
  divert(answer: (result: JsonObject) => void): void {
    this.diverted = answer;
  }

  ask(method: InputMethod, params: JsonObject | undefined, key?: string): Promise<JsonObject> {
    const counted = (this.counters.get(method) ?? 0) + 1;
    this.counters.set(method, counted);
    const name = key ?? defaultInputKey(method, counted);
    if (!declaresInput(this.envelope.clientCapabilities, method, params)) {
      const required = capabilityForInput(method, params);
      const error = missingCapabilityError(required, `${method} needs ${JSON.stringify(required)}, which this request did not declare`);
      return Promise.reject(new WireError(error.code, error.message, { data: error.data }));
    }
    const answer = this.given[name];
    if (answer !== undefined && answers(method, answer)) {
      this.used[name] = answer;
      return Promise.resolve(answer);
    }
    const before = this.snapshot;
    this.step({ type: 'INPUT_REQUIRED' });
    const pending = (this.pending ??= {});
    if (this.snapshot !== before) {
      // The first need of the round. Needs made in the same turn (Promise.all, several awaits answered from
      // state) are gathered into one answer: it goes out once the handler can make no more progress without input.
      nextTurn(() => this.flush());
    }
    pending[name] = params === undefined ? { method } : { method, params };
    // The handler stays suspended here; the request is answered with `input_required` instead.
    return never;
  }

  /** Sends the gathered input requests with the state the retry must bring back. */
  flush(): void {
    const sink = this.sink;
    const pending = this.pending;
    if (sink === undefined || pending === undefined || roundState(this.snapshot) !== 'inputRequired') return;
    const requestState = sink.seal({ answers: this.used, round: this.round + 1 });
    const result = { resultType: 'input_required', inputRequests: pending, requestState };
    if (this.diverted === undefined) sink.answer(result);
    else this.diverted(result);
  }
}

/**
 * Reads a retry's `inputResponses`. They are the client's own answers, untrusted like any argument: each is
 * checked against the result shape of the input request it answers when the handler asks for it.
 */
export function readInputResponses(params: JsonObject | undefined): { readonly [key: string]: unknown } | WireError {
  if (params === undefined || !('inputResponses' in params)) return {};
  const responses = params['inputResponses'];
  if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) {
    return new WireError(ErrorCode.InvalidParams, 'Invalid params: inputResponses must be an object of answers by input request key');
  }
  return responses as JsonObject;
}
