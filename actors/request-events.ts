/**
 * The events of one incoming request, from the handler boundary to the writer: progress and log messages while it
 * runs, then exactly one final event (its result, the `input_required` answer of a modern round, or its error).
 * Every layer between the handler and the wire (features, interceptors, tasks, the request actor) speaks them, so
 * what a value is (progress or the result) is decided once, by the normaliser (normalise-output.ts), and never
 * guessed again from its shape.
 *
 * `progress` and `result` have the shape interceptors see (`RequestEvent`, handler-types.ts): at the interceptor
 * boundary only the other three are translated.
 */
import type { JsonObject } from '../core/jsonrpc.ts';
import type { RequestEvent } from './handler-types.ts';

export type ProgressEvent = Extract<RequestEvent, { type: 'progress' }>;

export interface ResultEvent<R = JsonObject> {
  readonly type: 'result';
  readonly result: R;
}

/** A log message of the handler (`notifications/message` params), sent on the request's own stream. */
export interface LogEvent {
  readonly type: 'log';
  readonly params: JsonObject;
}

/** A modern round ends asking the client for input: `result` is its `input_required` answer. */
export interface InputEvent {
  readonly type: 'input';
  readonly result: JsonObject;
}

export interface ErrorEvent {
  readonly type: 'error';
  readonly error: unknown;
  /**
   * The output broke the handler contract (a stream that ended without a value): no failure of the handler's, so
   * a feature that turns failures into results (a tool's `isError`) leaves it an error.
   */
  readonly violation?: true;
}

/** How a request ends: one of these, once. */
export type FinalEvent<R = JsonObject> = ResultEvent<R> | InputEvent | ErrorEvent;

/** Everything a request emits: progress and log messages, then one {@link FinalEvent}. A stream of them never errors. */
export type HandlerEvent<R = JsonObject> = ProgressEvent | LogEvent | FinalEvent<R>;

export function resultEvent<R>(result: R): ResultEvent<R> {
  return { type: 'result', result };
}

export function errorEvent(error: unknown): ErrorEvent {
  return { type: 'error', error };
}

export function isFinal<R>(event: HandlerEvent<R>): event is FinalEvent<R> {
  return event.type === 'result' || event.type === 'error' || event.type === 'input';
}
