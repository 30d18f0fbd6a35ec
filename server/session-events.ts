/**
 * `server.sessions$`: sessions opening (their handshake done, or their first modern request served) and closing,
 * for operators who watch a server as a stream. Nothing is made or watched while nobody subscribes: a session
 * accepted then is watched (its state) only if someone observes at that moment, and closes are reported only to
 * observers present when they happen.
 */
import { Observable, Subject, filter, take } from 'rxjs';
import type { LocalError } from '../core/errors.ts';
import type { Implementation } from '../core/protocol/capabilities.ts';
import { MODERN_REVISIONS, type Revision } from '../core/protocol/versions.ts';
import type { McpSession } from '../session/session-core.ts';

/** A session of a server opened or closed. */
export interface ServerSessionEvent {
  /** `opened`: the handshake completed (legacy) or the connection was taken as a modern one; `closed`: it ended. */
  readonly type: 'opened' | 'closed';
  readonly session: McpSession;
  readonly era: 'legacy' | 'modern';
  /** The negotiated revision (legacy), 2026-07-28 (modern); undefined for a session closed before its handshake. */
  readonly revision: Revision | undefined;
  /** The transport's kind (`stdio`, `streamable-http`, `memory`, `nats`...). */
  readonly transport: string | undefined;
  /** The client's `clientInfo` (legacy; a modern client names itself on each request instead). */
  readonly peerInfo: Implementation | undefined;
  /**
   * Who the transport authenticated the client as for the session (Streamable HTTP with `authenticate`: the
   * principal of the request that opened it); undefined where the medium authenticates nobody, and for modern
   * connections, whose requests each name their own.
   */
  readonly principal: string | undefined;
  /** Why a session closed, if it closed for a reason. */
  readonly reason?: LocalError | undefined;
}

export class SessionEvents {
  private subject: Subject<ServerSessionEvent> | undefined;
  private observers = 0;
  private readonly kinds = new WeakMap<McpSession, string>();

  readonly events$ = new Observable<ServerSessionEvent>((subscriber) => {
    this.observers++;
    const subscription = (this.subject ??= new Subject()).subscribe(subscriber);
    return () => {
      this.observers--;
      subscription.unsubscribe();
    };
  });

  /** A session was accepted on a transport of `kind`. */
  accepted(session: McpSession, kind: string | undefined): void {
    if (this.observers === 0) return;
    if (kind !== undefined) this.kinds.set(session, kind);
    session.state$
      .pipe(
        filter((state) => state === 'operating' || state === 'stateless'),
        take(1),
      )
      .subscribe(() => this.subject?.next(this.event('opened', session, undefined)));
  }

  closed(session: McpSession, reason: LocalError | undefined): void {
    if (this.observers === 0) return;
    this.subject?.next(this.event('closed', session, reason));
  }

  private event(type: 'opened' | 'closed', session: McpSession, reason: LocalError | undefined): ServerSessionEvent {
    const era = session.era;
    return {
      type,
      session,
      era,
      revision: session.revision ?? (era === 'modern' ? MODERN_REVISIONS[0] : undefined),
      transport: this.kinds.get(session),
      peerInfo: session.peerInfo,
      principal: session.principal,
      ...(reason === undefined ? {} : { reason }),
    };
  }
}
