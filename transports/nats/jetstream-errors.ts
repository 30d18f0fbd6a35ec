/** What a JetStream failure of nats.js v3 means (see nats-errors.ts for the core ones). */
import { JetStreamApiError } from '@nats-io/jetstream';
import { causesOf, isNoResponders } from './nats-errors.ts';

/**
 * JetStream's API said nobody serves it (no responders), or that JetStream is not enabled for the account: the
 * `JetStreamNotEnabled` nats.js v3 throws for both (a class it does not export, so known by its name).
 */
export function isJetStreamUnavailable(error: unknown): boolean {
  return (error instanceof Error && error.name === 'JetStreamNotEnabled') || isNoResponders(error);
}

/** The JetStream API error code (`err_code`, such as 10071 "wrong last sequence") of an error it answered. */
export function apiErrorCode(error: unknown): number | undefined {
  for (const cause of causesOf(error)) if (cause instanceof JetStreamApiError) return cause.code;
  return undefined;
}

/** The HTTP-like status (`code`, such as 503 "temporarily unavailable") of an error the JetStream API answered. */
export function apiErrorStatus(error: unknown): number | undefined {
  for (const cause of causesOf(error)) if (cause instanceof JetStreamApiError) return cause.status;
  return undefined;
}
