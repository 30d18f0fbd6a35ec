/**
 * Multi round-trip requests (2026-07-28), client side. A modern server that needs elicitation, sampling or
 * roots answers `input_required`; the client answers each input request with the same handlers that serve
 * legacy server requests, then retries with a new id, the answers and the server's state echoed byte for
 * byte. To the caller it is one request: one Observable with the progress of every round and one result.
 */
import { Observable, type Subscription, isObservable, lastValueFrom } from 'rxjs';
import type { HandlerOutput, RequestContext, RequestEvent, RequestHandler, SessionView } from '../actors/handler-types.ts';
import { isEffect, runEffect } from '../core/abort.ts';
import { LocalError } from '../core/errors.ts';
import { type JsonObject, isJsonObject } from '../core/jsonrpc.ts';
import { isInputMethod } from '../core/protocol/modern.ts';
import { type RoundEvent, initialRound, roundState, stepRound } from '../machines/request-round.ts';

/** Answers one input request with the client's own handler for its method. */
export type InputAnswerer = (method: string, params: JsonObject | undefined, signal: AbortSignal) => Promise<JsonObject>;

/** Sends one round: the request with `extra` params merged in. */
export type RoundSender<R> = (extra: JsonObject | undefined) => Observable<RequestEvent<R>>;

export const DEFAULT_MAX_ROUNDS = 16;

/** The client's request handlers, run locally for input requests (they never see a JSON-RPC id). */
export function inputAnswerer(handlers: ReadonlyMap<string, RequestHandler>, view: SessionView): InputAnswerer {
  return async (method, params, signal) => {
    const handler = isInputMethod(method) ? handlers.get(method) : undefined;
    if (handler === undefined) throw new LocalError('ProtocolViolation', `The server asked for ${method} input, which this client does not offer`);
    const context = { signal, session: view } as RequestContext;
    return settle(handler(params, context), signal) as Promise<JsonObject>;
  };
}

function badResultType(type: unknown): string {
  // A task where none may be (the extension not declared, or a method that never becomes one) is invalid too.
  if (type === 'task') return 'The server answered with a task (resultType "task"), which this request cannot take (the tasks extension is not declared, or the method is not one a task may answer)';
  return `The server answered with an unknown resultType ${JSON.stringify(type)}`;
}

async function settle(output: HandlerOutput, signal: AbortSignal): Promise<unknown> {
  if (isObservable(output)) return lastValueFrom(output);
  if (isEffect(output)) {
    const outcome = await runEffect(output, signal);
    if (outcome.type === 'success') return outcome.value;
    throw outcome.type === 'failure' ? outcome.error : new LocalError('RequestAborted', 'The input handler was interrupted');
  }
  return output;
}

/**
 * Follows a task a round was answered with (`resultType: "task"`, the tasks extension): given only where the
 * client declared the extension and the method may become a task (client/task-follower.ts).
 */
export type TaskFollower<R> = (created: JsonObject) => Observable<RequestEvent<R>>;

/** What a round's answer means to the machine: its `resultType`, and whether one more round is allowed. */
function classify(result: JsonObject, rounds: number, maxRounds: number): RoundEvent {
  const type = result['resultType'];
  // A result without a type comes from a legacy server: it is complete.
  if (type === undefined || type === 'complete') return { type: 'COMPLETE' };
  if (type !== 'input_required') return { type: 'BAD_RESULT' };
  return rounds >= maxRounds ? { type: 'ROUND_LIMIT' } : { type: 'INPUT_REQUIRED' };
}

/**
 * Runs a request through as many rounds as the server needs (at most `maxRounds`). The request round machine
 * (machines/request-round.ts) says what an answer leads to; this driver does the sending and the answering.
 * Unsubscribing cancels the round in flight and any input handler still running.
 */
export function withInputRounds<R extends object>(send: RoundSender<R>, answer: InputAnswerer, maxRounds = DEFAULT_MAX_ROUNDS, onTask?: TaskFollower<R>): Observable<RequestEvent<R>> {
  return new Observable<RequestEvent<R>>((subscriber) => {
    // Only a request that needs input runs handlers that could be aborted: most never make the controller.
    let controller: AbortController | undefined;
    let snapshot = initialRound;
    let current: Subscription | undefined;
    let following: Subscription | undefined;
    let rounds = 0;
    const fail = (error: unknown): void => {
      snapshot = stepRound(snapshot, { type: 'FAIL' });
      subscriber.error(error);
    };
    const run = (extra: JsonObject | undefined): void => {
      rounds++;
      current = send(extra).subscribe({
        next: (event) => {
          if (event.type !== 'result') return subscriber.next(event);
          const result = event.result as JsonObject;
          if (result['resultType'] === 'task' && onTask !== undefined) {
            // The round is over (the request was answered); the task it became is followed from here.
            snapshot = stepRound(snapshot, { type: 'COMPLETE' });
            following = onTask(result).subscribe(subscriber);
            return undefined;
          }
          const outcome = classify(result, rounds, maxRounds);
          snapshot = stepRound(snapshot, outcome);
          switch (roundState(snapshot)) {
            case 'complete':
              subscriber.next(event);
              return subscriber.complete();
            case 'failed':
              return subscriber.error(
                outcome.type === 'BAD_RESULT'
                  ? new LocalError('ProtocolViolation', badResultType(result['resultType']))
                  : new LocalError('ProtocolViolation', `The server still needed input after ${maxRounds} rounds`),
              );
            case 'inputRequired':
              return void fulfil(result).then((next) => {
                snapshot = stepRound(snapshot, { type: 'ANSWERED' });
                // A round cancelled while its input was being answered stays cancelled: nothing is sent.
                if (roundState(snapshot) === 'retried') run(next);
              }, fail);
            default:
              return undefined;
          }
        },
        error: fail,
        complete: () => undefined,
      });
    };
    const fulfil = async (result: JsonObject): Promise<JsonObject> => {
      const signal = (controller ??= new AbortController()).signal;
      const requests = isJsonObject(result['inputRequests']) ? result['inputRequests'] : {};
      const keys = Object.keys(requests);
      const answers = await Promise.all(
        keys.map((key) => {
          const request = requests[key];
          if (!isJsonObject(request) || typeof request['method'] !== 'string') {
            throw new LocalError('ProtocolViolation', `Input request ${JSON.stringify(key)} is malformed`);
          }
          return answer(request['method'], isJsonObject(request['params']) ? request['params'] : undefined, signal);
        }),
      );
      const inputResponses: Record<string, JsonObject> = {};
      keys.forEach((key, index) => (inputResponses[key] = answers[index] as JsonObject));
      const state = result['requestState'];
      // The state is the server's: echoed exactly, and only when it gave one.
      return typeof state === 'string' ? { inputResponses, requestState: state } : { inputResponses };
    };
    run(undefined);
    return () => {
      snapshot = stepRound(snapshot, { type: 'CANCEL' });
      controller?.abort(new LocalError('RequestAborted', 'The caller stopped waiting'));
      current?.unsubscribe();
      following?.unsubscribe();
    };
  });
}
