/**
 * Resource subscriptions of legacy sessions (`resources/subscribe`): which URIs each session follows, bounded per
 * session, and the reverse index the fan-out reads to tell a resource's subscribers that it changed. A session's
 * own set lives in a WeakMap and is made on its first subscription, so a session that never subscribes costs
 * nothing here; a closed session is taken out of the index.
 */
import type { SubscriptionBook } from '../actors/features/resources-feature.ts';
import type { SessionView } from '../actors/handler-types.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { WireError } from '../core/errors.ts';
import type { McpSession } from '../session/session-core.ts';

export class ResourceSubscriptions implements SubscriptionBook {
  /** The URIs each session follows. */
  private readonly own = new WeakMap<SessionView, Set<string>>();
  /** The sessions following each URI. */
  private readonly subscribers = new Map<string, Set<McpSession>>();

  /** @param maxPerSession subscriptions one session may hold (`ServerOptions.maxSubscriptionsPerSession`) */
  /** @param changed called after a session's own set changed (its portable state, see `PortableSessionState`) */
  constructor(private readonly maxPerSession: number, private readonly changed: (session: SessionView) => void = () => undefined) {}

  /** The URIs `session` follows now. */
  of(session: SessionView): readonly string[] {
    const own = this.own.get(session);
    return own === undefined ? [] : Array.from(own);
  }

  /**
   * A restored session's subscriptions (a takeover), up to the cap; returns those restored. The URIs were
   * accepted by the process that served the session before, so they are not checked again.
   */
  restore(session: SessionView, uris: readonly string[]): readonly string[] {
    for (const uri of uris) {
      if (typeof uri !== 'string' || (this.own.get(session)?.size ?? 0) >= this.maxPerSession) break;
      this.add(session, uri);
    }
    return this.of(session);
  }

  subscribe(session: SessionView, uri: string): void {
    let own = this.own.get(session);
    if (own === undefined) this.own.set(session, (own = new Set()));
    if (!own.has(uri) && own.size >= this.maxPerSession) {
      throw new WireError(ErrorCode.InvalidParams, `Invalid params: a session may hold at most ${this.maxPerSession} resource subscriptions`);
    }
    const fresh = !own.has(uri);
    this.add(session, uri);
    if (fresh) this.changed(session);
  }

  private add(session: SessionView, uri: string): void {
    let own = this.own.get(session);
    if (own === undefined) this.own.set(session, (own = new Set()));
    own.add(uri);
    let set = this.subscribers.get(uri);
    if (set === undefined) this.subscribers.set(uri, (set = new Set()));
    // Only sessions subscribe (the handler's view of a legacy session is the session itself).
    set.add(session as McpSession);
  }

  unsubscribe(session: SessionView, uri: string): void {
    const removed = this.own.get(session)?.delete(uri) === true;
    this.drop(uri, session as McpSession);
    if (removed) this.changed(session);
  }

  /** The sessions subscribed to `uri` now (empty when none). */
  subscribersOf(uri: string): ReadonlySet<McpSession> {
    return this.subscribers.get(uri) ?? NONE;
  }

  /** Forgets a closed session's subscriptions. */
  sessionClosed(session: McpSession): void {
    const own = this.own.get(session);
    if (own !== undefined) for (const uri of own) this.drop(uri, session);
  }

  private drop(uri: string, session: McpSession): void {
    const set = this.subscribers.get(uri);
    if (set === undefined) return;
    set.delete(session);
    if (set.size === 0) this.subscribers.delete(uri);
  }
}

const NONE: ReadonlySet<McpSession> = new Set();
