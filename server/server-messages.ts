/**
 * `server.messages$`: the message taps of every open session, merged. Nothing is made or tapped while nobody
 * observes: the first subscription taps the sessions open then, and every session accepted while observed; the
 * last unsubscription releases every session's tap, so the sessions go back to holding none.
 */
import { Observable, Subject, type Subscription } from 'rxjs';
import type { McpSession } from '../session/session-core.ts';
import type { SessionMessage } from '../session/message-tap.ts';

export class ServerMessages {
  private subject: Subject<SessionMessage<McpSession>> | undefined;
  private taps: Map<McpSession, Subscription> | undefined;

  constructor(private readonly open: ReadonlySet<McpSession>) {}

  readonly messages$ = new Observable<SessionMessage<McpSession>>((subscriber) => {
    let subject = this.subject;
    if (subject === undefined) {
      subject = this.subject = new Subject();
      this.taps = new Map();
      for (const session of this.open) this.tap(session);
    }
    const subscription = subject.subscribe(subscriber);
    return () => {
      subscription.unsubscribe();
      if (this.subject === subject && !subject.observed) this.release();
    };
  });

  /** A session was accepted: tapped at once if someone observes. */
  accepted(session: McpSession): void {
    if (this.subject !== undefined) this.tap(session);
  }

  /** A session closed (its tap completed on its own): forgotten. */
  closed(session: McpSession): void {
    this.taps?.delete(session);
  }

  private tap(session: McpSession): void {
    const taps = this.taps;
    const subject = this.subject;
    if (taps === undefined || subject === undefined || taps.has(session)) return;
    // Each message goes on to the merged stream; a session's completion is its own, not the server's.
    const subscription = session.messages$.subscribe({ next: (message) => subject.next(message) });
    if (!subscription.closed) taps.set(session, subscription);
  }

  private release(): void {
    const taps = this.taps;
    this.subject = undefined;
    this.taps = undefined;
    if (taps !== undefined) for (const subscription of taps.values()) subscription.unsubscribe();
  }
}
