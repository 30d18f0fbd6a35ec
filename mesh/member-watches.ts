/**
 * The member URIs a link follows for the mesh's callers (mesh/resource-subscriptions.ts holds who follows what):
 * one subscription per URI on the member's shared session, however many holders share it, released by the last.
 * The first holder's `watch` waits for the member to accept (`resources/subscribe` answered); the updates are heard
 * through the session's `subscribe$`, which unsubscribes on the member when it ends. The URIs outlive a session: a
 * member that comes back is subscribed again to every URI still held (`attach`).
 */
import type { Subscription } from 'rxjs';
import type { ClientSession } from '../client/session-api.ts';
import { resourcesSubscribe } from '../core/protocol/declarations/resources.ts';

/** Distinct resources followed on one member at once (a template could name them without end). */
const MAX_WATCHED = 10_000;

interface Watched {
  holders: number;
  upstream: Subscription | undefined;
}

export class MemberWatches {
  private readonly watched = new Map<string, Watched>();
  private session: ClientSession | undefined;

  /** @param updated told of each update the member sends of a URI followed (its URI on the member) */
  constructor(private readonly updated: (uri: string) => void) {}

  /**
   * One more holder of `uri`, on `session`; `accepted` bounds the wait for the member's answer. Rejects with the
   * member's refusal, or a RangeError past {@link MAX_WATCHED}.
   */
  async watch(session: ClientSession, uri: string, accepted: (subscribed: Promise<unknown>) => Promise<unknown>): Promise<() => void> {
    if (!this.watched.has(uri)) {
      if (this.watched.size >= MAX_WATCHED) throw new RangeError(`the mesh follows ${MAX_WATCHED} of its resources already`);
      await accepted(session.request(resourcesSubscribe, { uri }));
    }
    let entry = this.watched.get(uri);
    if (entry === undefined) {
      entry = { holders: 0, upstream: undefined };
      this.watched.set(uri, entry);
      if (this.session === session) this.follow(session, uri, entry);
    }
    entry.holders++;
    const held = entry;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--held.holders > 0 || this.watched.get(uri) !== held) return;
      this.watched.delete(uri);
      held.upstream?.unsubscribe();
      held.upstream = undefined;
    };
  }

  /** The member's session now: every URI held is followed on it. */
  attach(session: ClientSession): void {
    this.session = session;
    for (const [uri, entry] of this.watched) this.follow(session, uri, entry);
  }

  /** The session is gone: the URIs stay held, followed again at the next `attach`. */
  detach(): void {
    this.session = undefined;
    for (const entry of this.watched.values()) {
      entry.upstream?.unsubscribe();
      entry.upstream = undefined;
    }
  }

  clear(): void {
    this.detach();
    this.watched.clear();
  }

  private follow(session: ClientSession, uri: string, entry: Watched): void {
    entry.upstream = session.subscribe$(uri).subscribe({
      next: () => this.updated(uri),
      error: () => {
        entry.upstream = undefined;
      },
    });
  }
}
