/**
 * A process's subscription to a legacy session's subject, made before it claims the session (so whoever reads
 * the record naming it finds it subscribed) and kept once it serves the session. Until then messages are held,
 * a bounded number.
 */
import type { Msg, NatsConnection, Subscription } from '@nats-io/nats-core';
import { ErrorCode } from '../../../core/error-codes.ts';
import { replyOf } from '../headers.ts';
import { decodeBody, refuse } from './inbound.ts';

/** Messages held for one session while its ownership is unsettled (a claim, a reconnection's check). */
export const MAX_HELD = 256;

export interface Reservation {
  readonly subscription: Subscription;
  readonly held: Msg[];
  /** Where messages go once the session is served here; held until then. */
  deliver: ((msg: Msg) => void) | undefined;
}

/** Subscribes to a session's `subject`, holding its messages until `deliver` is set. */
export function reserveSession(connection: NatsConnection, subject: string, maxMessageBytes: number): Reservation {
  const held: Msg[] = [];
  const reservation: { subscription?: Subscription; held: Msg[]; deliver: Reservation['deliver'] } = { held, deliver: undefined };
  reservation.subscription = connection.subscribe(subject, {
    // A queue group: while a session changes hands, a message still reaches one process only.
    queue: 'mcp-session',
    callback: (error, msg) => {
      if (error !== null) return;
      if (reservation.deliver !== undefined) return reservation.deliver(msg);
      if (held.length < MAX_HELD) return void held.push(msg);
      const reply = replyOf(msg);
      if (reply !== undefined) refuse(connection, reply, decodeBody(msg, maxMessageBytes).codec, undefined, ErrorCode.InternalError, 'The session is being taken over; retry the request');
    },
  });
  return reservation as Reservation;
}
