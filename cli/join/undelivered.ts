/**
 * Why the join could not carry a frame, or could not wait any longer for an answer. A request so refused is
 * answered with a JSON-RPC error whose message each configuration words its own way (the gateway and the bridge
 * speak to their users differently); `detail` is the plain fact, for reports and for wordings that just prefix it.
 */
import type { RequestId } from '../../core/jsonrpc.ts';
import { describe } from './payload.ts';

export type Undelivered =
  /** The receiver's medium threw or rejected the send (closed, a header it cannot carry). */
  | { readonly kind: 'refused'; readonly error: unknown }
  /** The receiver's medium took the frame but reported it undeliverable (no responders, silence, too large). */
  | { readonly kind: 'reported'; readonly why: string }
  /** The queue toward the receiver holds `max` frames already. */
  | { readonly kind: 'full'; readonly max: number }
  /** The receiver ended (or is closed): nothing more reaches it. */
  | { readonly kind: 'ended'; readonly why: string }
  /** The join is closing: it takes no new requests. */
  | { readonly kind: 'closing' }
  /** `max` requests of the front are in flight already. */
  | { readonly kind: 'in-flight'; readonly max: number }
  /** The `prepare` hook failed for the frame. */
  | { readonly kind: 'prepare'; readonly error: unknown }
  /** The request was carried, but its answer can no longer come: the join closed (after `drainMs`, if > 0). */
  | { readonly kind: 'unanswered'; readonly id: RequestId; readonly drainMs: number; readonly why: string };

/** The plain fact, naming the receiver `to`. */
export function detail(undelivered: Undelivered, to: string): string {
  switch (undelivered.kind) {
    case 'refused':
    case 'prepare':
      return describe(undelivered.error);
    case 'reported':
    case 'ended':
      return undelivered.why;
    case 'full':
      return `${to} is not keeping up (${undelivered.max} messages wait for it)`;
    case 'closing':
      return 'the connection is closing';
    case 'in-flight':
      return `${undelivered.max} requests are in flight already`;
    case 'unanswered':
      return undelivered.why;
  }
}
