/**
 * The message tap of one session (`session.messages$`): every frame the session reads and every frame its writer
 * hands to the transport, for audit and debugging. Nothing is made until someone subscribes: the session holds
 * no tap at all while unobserved (its hot paths check one field), the subject exists only while observed, and the
 * last unsubscription releases it and takes the tap out of the session again.
 */
import { Observable, Subject } from 'rxjs';
import type { MessageTapPort } from '../actors/outbound-writer.ts';
import type { WirePayload } from '../core/jsonrpc.ts';

/** One frame that passed a session, in either direction. */
export interface SessionMessage<S = unknown> {
  /** `in`: read from the peer. `out`: handed to the transport for the peer. */
  readonly direction: 'in' | 'out';
  /** The payload as the session sees it: a decoded JSON-RPC message or batch (inbound: maybe not yet validated). */
  readonly payload: unknown;
  /** When it passed, on the session's clock. */
  readonly at: number;
  readonly session: S;
}

/** What a tap needs from its session: where to attach itself and the time now. */
export interface TapHost<S> {
  readonly self: S;
  now(): number;
  /** Puts the tap into the session's paths, or (undefined) takes it out. */
  attachTap(tap: MessageTap<S> | undefined): void;
}

export class MessageTap<S> implements MessageTapPort {
  private readonly subject = new Subject<SessionMessage<S>>();
  private observers = 0;

  private constructor(private readonly host: TapHost<S>) {}

  /** The Observable a session hands out: attaches a tap on first subscription, detaches it on the last. */
  static observe<S>(host: TapHost<S>, current: () => MessageTap<S> | undefined, closed: () => boolean): Observable<SessionMessage<S>> {
    return new Observable<SessionMessage<S>>((subscriber) => {
      if (closed()) {
        subscriber.complete();
        return undefined;
      }
      let tap = current();
      if (tap === undefined) {
        tap = new MessageTap(host);
        host.attachTap(tap);
      }
      const owner = tap;
      owner.observers++;
      const subscription = owner.subject.subscribe(subscriber);
      return () => {
        subscription.unsubscribe();
        if (--owner.observers === 0 && current() === owner) host.attachTap(undefined);
      };
    });
  }

  inbound(payload: unknown): void {
    this.subject.next({ direction: 'in', payload, at: this.host.now(), session: this.host.self });
  }

  outbound(payload: WirePayload): void {
    this.subject.next({ direction: 'out', payload, at: this.host.now(), session: this.host.self });
  }

  /** The session closed: observers complete. */
  complete(): void {
    this.subject.complete();
  }
}
