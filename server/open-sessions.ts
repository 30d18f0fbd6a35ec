/**
 * The sessions a server has open, and the runtime options each is accepted with: the server's own
 * (`ServerOptions.session`) under the ones passed to `accept`, with an `onClosed` that takes the session out of the
 * set and lets the other parts forget it (its tasks, its subscriptions) before the caller's own `onClosed` runs.
 */
import type { LocalError } from '../core/errors.ts';
import type { McpSession, SessionRuntimeOptions } from '../session/session-core.ts';
import { SessionEvents } from './session-events.ts';
import { ServerMessages } from './server-messages.ts';

export class OpenSessions {
  private readonly open = new Set<McpSession>();
  /**
   * One merged runtime per distinct runtime passed in (a host passes the same one for every session), so sessions
   * do not each hold a copy and a closure.
   */
  private readonly merged = new WeakMap<SessionRuntimeOptions, SessionRuntimeOptions>();
  private readonly defaultRuntime: SessionRuntimeOptions;
  /** `server.sessions$`: costs nothing while unobserved. */
  readonly events = new SessionEvents();
  /** `server.messages$`: costs nothing while unobserved. */
  readonly messages = new ServerMessages(this.open);
  private readonly onClosed = (session: McpSession, reason: LocalError | undefined): void => {
    this.open.delete(session);
    this.messages.closed(session);
    this.forget(session);
    this.events.closed(session, reason);
  };

  /**
   * @param defaults the server's session options
   * @param forget   called once per closed session, before the `onClosed` of its runtime
   */
  constructor(private readonly defaults: SessionRuntimeOptions | undefined, private readonly forget: (session: McpSession) => void) {
    this.defaultRuntime = this.merge(undefined);
  }

  /** The sessions open now (the server's `sessions`). */
  get all(): ReadonlySet<McpSession> {
    return this.open;
  }

  /** @param kind the kind of the transport it was accepted on */
  add(session: McpSession, kind?: string): McpSession {
    this.open.add(session);
    this.messages.accepted(session);
    this.events.accepted(session, kind);
    return session;
  }

  /** What a session accepted with `runtime` runs with. */
  runtimeFor(runtime: SessionRuntimeOptions | undefined): SessionRuntimeOptions {
    if (runtime === undefined) return this.defaultRuntime;
    // Options made for one connection (a stateless request's) are merged as they come, not remembered.
    if (runtime.preinitialized !== undefined || runtime.knownEra !== undefined || runtime.limits !== undefined) return this.merge(runtime);
    let merged = this.merged.get(runtime);
    if (merged === undefined) this.merged.set(runtime, (merged = this.merge(runtime)));
    return merged;
  }

  private merge(runtime: SessionRuntimeOptions | undefined): SessionRuntimeOptions {
    const own = runtime?.onClosed ?? this.defaults?.onClosed;
    const onClosed = this.onClosed;
    return {
      ...this.defaults,
      ...runtime,
      onClosed: own === undefined ? onClosed : (session, reason) => {
        onClosed(session, reason);
        own(session, reason);
      },
    };
  }
}
