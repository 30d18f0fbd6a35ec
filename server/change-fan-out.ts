/**
 * Change fan-out: a change of the server (a list, a resource's content) reaches every session that should hear of
 * it. Legacy sessions are told directly (`notifications/<list>/list_changed` when the capabilities they were given
 * promise it, `notifications/resources/updated` when subscribed); modern listens (`subscriptions/listen`) hear
 * `changes$`. A change made in this process is also put on the change feed's `local$`, for a medium that carries
 * changes to other processes serving the same name (NATS); one applied from elsewhere is only told here.
 *
 * Who hears a resource update is decided as it is sent, wherever the change was made: a legacy subscriber or a
 * modern listen hears it only if its caller may read the resource now, under the rule `resources/read` applies
 * ({@link ChangeFanOut.mayHear}; a rule added or tightened since the subscription counts).
 */
import { type Observable, Subject } from 'rxjs';
import { type AccessRule, admits } from '../actors/features/access.ts';
import type { ServerCatalog } from '../actors/features/catalog.ts';
import { resourceRuleFor } from '../actors/features/resources-feature.ts';
import type { AuthInfo } from '../core/auth.ts';
import type { ServerCapabilities } from '../core/protocol/capabilities.ts';
import type { ChangeFeedPort, ServerChange } from '../core/server-change.ts';
import type { McpSession } from '../session/session-core.ts';
import type { ResourceSubscriptions } from './subscriptions.ts';

type ListChange = Exclude<ServerChange, { type: 'resource-updated' }>['type'];

/** The notification of each list, and whether the capabilities a session was given promise it. */
const LIST_CHANGED: Readonly<Record<ListChange, { method: string; promised: (capabilities: ServerCapabilities) => boolean }>> = {
  tools: { method: 'notifications/tools/list_changed', promised: (c) => c.tools?.listChanged === true },
  prompts: { method: 'notifications/prompts/list_changed', promised: (c) => c.prompts?.listChanged === true },
  resources: { method: 'notifications/resources/list_changed', promised: (c) => c.resources?.listChanged === true },
};

export class ChangeFanOut {
  private readonly modern$ = new Subject<ServerChange>();
  private readonly local$ = new Subject<ServerChange>();
  /** Every change told here, for modern listens. */
  readonly changes$: Observable<ServerChange> = this.modern$.asObservable();
  /** The feed a multi-process medium reads and writes (`McpServer.changes`). */
  readonly feed: ChangeFeedPort = { local$: this.local$.asObservable(), apply: (change) => this.announce(change) };
  /** The catalog whose access rules say who may hear of a resource update (see {@link follow}). */
  private catalog: ServerCatalog | undefined;
  /** The rule of each resource update being told, looked up once however many hear it. */
  private readonly rules = new WeakMap<ServerChange, AccessRule | null>();

  /**
   * @param sessions      the server's open sessions (read at each change, never copied)
   * @param subscriptions who follows which resource
   */
  constructor(private readonly sessions: ReadonlySet<McpSession>, private readonly subscriptions: ResourceSubscriptions) {}

  /** A change made in this process: told here and offered to other processes. */
  changeHere(change: ServerChange): void {
    this.announce(change);
    this.local$.next(change);
  }

  /**
   * Whether a subscriber authenticated as `auth` may hear of `change`, now: a resource update only if it may read
   * the resource (list changes: everyone the capabilities promise them). Legacy sessions and modern listens both ask.
   */
  readonly mayHear = (change: ServerChange, auth: AuthInfo | undefined): boolean => {
    if (change.type !== 'resource-updated' || this.catalog === undefined) return true;
    let rule = this.rules.get(change);
    if (rule === undefined) this.rules.set(change, (rule = resourceRuleFor(this.catalog, change.uri) ?? null));
    return rule === null || admits(rule, auth);
  };

  /** Tells this process's legacy sessions and modern listens about a change, wherever it was made. */
  announce(change: ServerChange): void {
    if (change.type === 'resource-updated') {
      for (const session of this.subscriptions.subscribersOf(change.uri)) {
        if (session.state === 'operating' && this.mayHear(change, session.auth)) session.notify('notifications/resources/updated', { uri: change.uri });
      }
    } else {
      const { method, promised } = LIST_CHANGED[change.type];
      for (const session of this.sessions) {
        if (session.state === 'operating' && promised(session.ownCapabilities as ServerCapabilities)) session.notify(method);
      }
    }
    this.modern$.next(change);
  }

  /**
   * Turns the catalog's changes into list changes. Each registry already coalesces a burst into one emission;
   * resources and templates are one list for clients, so a burst touching both sends one notification.
   */
  follow(catalog: ServerCatalog): void {
    this.catalog = catalog;
    catalog.tools.changed$.subscribe(() => this.changeHere({ type: 'tools' }));
    catalog.prompts.changed$.subscribe(() => this.changeHere({ type: 'prompts' }));
    let resourcesPending = false;
    const resourcesChanged = (): void => {
      if (resourcesPending) return;
      resourcesPending = true;
      queueMicrotask(() => {
        resourcesPending = false;
        this.changeHere({ type: 'resources' });
      });
    };
    catalog.resources.changed$.subscribe(resourcesChanged);
    catalog.templates.changed$.subscribe(resourcesChanged);
  }
}
