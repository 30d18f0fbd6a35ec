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
  constructor(private readonly maxPerSession: number) {}

  subscribe(session: SessionView, uri: string): void {
    let own = this.own.get(session);
    if (own === undefined) this.own.set(session, (own = new Set()));
    if (!own.has(uri) && own.size >= this.maxPerSession) {
      throw new WireError(ErrorCode.InvalidParams, `Invalid params: a session may hold at most ${this.maxPerSession} resource subscriptions`);
    }
    own.add(uri);
    let set = this.subscribers.get(uri);
    if (set === undefined) this.subscribers.set(uri, (set = new Set()));
    // Only sessions subscribe (the handler's view of a legacy session is the session itself).
    set.add(session as McpSession);
  }

  unsubscribe(session: SessionView, uri: string): void {
    this.own.get(session)?.delete(uri);
    this.drop(uri, session as McpSession);
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
