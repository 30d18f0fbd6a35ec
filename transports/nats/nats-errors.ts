/**
 * What a nats.js v3 failure means, read from its error classes. nats.js v3 reports failures as classes, and wraps
 * them: a request nobody serves fails with a `RequestError` whose cause is a `NoRespondersError`, and a JetStream
 * API call nobody serves with a `JetStreamNotEnabled` whose cause is that `RequestError`. So each question looks
 * along the error's cause chain. Core NATS only (no JetStream): the client transport, which runs in browsers too,
 * asks these.
 */
import { NoRespondersError, TimeoutError } from '@nats-io/nats-core';

/** Errors wrap at most a few levels deep; the bound keeps a cyclic cause from looping. */
const MAX_CAUSES = 8;

/** `error`, then its cause, its cause's cause, and so on (bounded). */
export function* causesOf(error: unknown): Generator<unknown> {
  let current = error;
  for (let depth = 0; depth < MAX_CAUSES && current !== undefined && current !== null; depth++) {
    yield current;
    current = (current as { readonly cause?: unknown }).cause;
  }
}

/** Nobody subscribes to the subject (the request went nowhere), at any depth. */
export function isNoResponders(error: unknown): boolean {
  for (const cause of causesOf(error)) if (cause instanceof NoRespondersError) return true;
  return false;
}

/** The request heard no answer in time (it may have been carried out). */
export function isTimeout(error: unknown): boolean {
  for (const cause of causesOf(error)) if (cause instanceof TimeoutError) return true;
  return false;
}
