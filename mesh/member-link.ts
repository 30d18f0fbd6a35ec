/**
 * One member as the mesh holds it: an rxmcp client session over NATS, its catalog, and its health. The link
 * connects, lists, re-lists when the member says its lists changed (or its `catalogRevision` moves), pings, and
 * forwards the mesh's requests with their progress and cancellation. When the member stops answering (a ping or a
 * listing times out, the session closes) the link goes down: its catalog is withdrawn, every request in flight fails
 * with the member's name, and it tries again later, backing off. Nothing here touches another member. It also holds
 * the member resources the mesh's callers follow (mesh/member-watches.ts), subscribed again whenever it comes back.
 * Its timers run on the mesh's clock.
 */
import type { NatsConnection } from '@nats-io/nats-core';
import type { Subscription } from 'rxjs';
import { createClient } from '../client/create-client.ts';
import type { ClientSession } from '../client/session-api.ts';
import type { FeatureContext } from '../actors/features/feature-context.ts';
import type { PromiseRequestOptions } from '../actors/handler-types.ts';
import { WireError, isLocalError } from '../core/errors.ts';
import { createNatsClientTransport } from '../transports/nats/client/index.ts';
import type { NatsIdentitySigner } from '../transports/nats/identity/identity-signer.ts';
import type { SessionView } from '../actors/handler-types.ts';
import type { Completer } from '../actors/features/catalog.ts';
import type { Clock, TimerHandle } from '../core/clock.ts';
import type { CompletionReference } from '../core/protocol/completion.ts';
import { type Channel, CallerChannels } from './caller-channels.ts';
import { isSessionGone, memberUnavailable } from './errors.ts';
import { type MemberCatalog, listMemberCatalog } from './member-catalog.ts';
import { MemberWatches } from './member-watches.ts';
import type { MeshMember } from './options.ts';

export interface LinkSettings {
  readonly connection: NatsConnection;
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly retryMs: number;
  readonly callTimeoutMs: number;
  readonly identity: NatsIdentitySigner | undefined;
  readonly clock: Clock;
}

/** What the link tells the mesh. */
export interface LinkListener {
  /** The member's catalog now (undefined: withdraw it), with whether this is its first listing since it came up. */
  catalog(link: MemberLink, catalog: MemberCatalog | undefined, fresh: boolean): void;
  down(link: MemberLink, reason: string): void;
  /** The member said a resource the mesh's callers follow changed (`uri`: its URI on the member). */
  resourceUpdated(link: MemberLink, uri: string): void;
}


const MAX_RETRY_MS = 30_000;
/** Requests in flight through one member at once; more are refused rather than queued without bound. */
const MAX_IN_FLIGHT = 1024;

export class MemberLink {
  private session: ClientSession | undefined;
  private subscriptions: Subscription[] = [];
  private healthTimer: TimerHandle | undefined;
  private retryTimer: TimerHandle | undefined;
  private retryMs: number;
  private readonly inFlight = new Map<AbortController, WireError | undefined>();
  private stopped = false;
  private listing: Promise<void> | undefined;
  private relistPending = false;
  /** Bumps on every connection attempt and every teardown, so a stale attempt's outcome is ignored. */
  private epoch = 0;
  /** The callers' own sessions with the member, for what it asks back and logs during their requests. */
  private readonly channels: CallerChannels;
  /** The member URIs the mesh's callers follow, each subscribed once on the shared session. */
  private readonly watches: MemberWatches;

  constructor(
    public member: MeshMember,
    private readonly settings: LinkSettings,
    private readonly listener: LinkListener,
  ) {
    this.retryMs = settings.retryMs;
    this.channels = new CallerChannels(() => this.member, settings);
    this.watches = new MemberWatches((uri) => this.listener.resourceUpdated(this, uri));
  }

  /** A caller's session with the mesh closed: so does its session with the member. */
  callerClosed(view: SessionView): void {
    this.channels.close(view);
  }

  /** Whether the member serves task-augmented `tools/call` (2025-11-25 `tasks.requests.tools.call`). */
  get servesToolTasks(): boolean {
    return this.session?.serverCapabilities?.tasks?.requests?.['tools']?.['call'] !== undefined;
  }

  /** Whether the member offers resource subscriptions. */
  get offersSubscriptions(): boolean {
    return this.session?.serverCapabilities?.resources?.subscribe === true;
  }

  /**
   * Follows `uri` on the member for one holder of the mesh (mesh/member-watches.ts): resolves, once the member
   * accepted, with the holder's release.
   */
  async watch(uri: string): Promise<() => void> {
    const session = this.session;
    if (session === undefined) throw memberUnavailable(this.binding, 'it is not connected');
    try {
      return await this.watches.watch(session, uri, (subscribed) => withTimeout(this.settings.clock, subscribed, this.settings.timeoutMs, 'subscribing'));
    } catch (error) {
      if (error instanceof RangeError) throw memberUnavailable(this.binding, error.message);
      if (!(error instanceof WireError) && !isLocalError(error)) throw memberUnavailable(this.binding, `it did not accept the subscription (${messageOf(error)})`);
      this.rethrow(error);
    }
  }

  get binding(): string {
    return this.member.binding;
  }

  /** Whether the member is connected and listed. */
  get up(): boolean {
    return this.session !== undefined;
  }

  start(): void {
    void this.connect();
  }

  /** The member as announced again: a new `catalogRevision` means its catalog changed. */
  update(member: MeshMember): void {
    const revised = member.catalogRevision !== this.member.catalogRevision;
    this.member = member;
    if (revised && this.session !== undefined) this.relist();
  }

  /** The member left the mesh: everything in flight fails, nothing is retried. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.retryTimer?.cancel();
    this.retryTimer = undefined;
    this.teardown(memberUnavailable(this.binding, 'it left the mesh'));
  }

  /**
   * Forwards one request to the member: the mesh caller's cancellation cancels it there, the member's progress
   * reaches the caller, and the member's own protocol errors are answered as they are. Fails with the member's
   * name when the member goes down meanwhile.
   */
  async forward<R>(context: FeatureContext, send: (session: ClientSession, options: PromiseRequestOptions) => Promise<R>, retried = false): Promise<R> {
    const shared = this.session;
    if (shared === undefined) throw memberUnavailable(this.binding, 'it is not connected');
    if (this.inFlight.size >= MAX_IN_FLIGHT) throw memberUnavailable(this.binding, `it has ${MAX_IN_FLIGHT} requests in flight already`);
    const controller = new AbortController();
    const cancel = (): void => controller.abort(context.signal.reason);
    context.signal.addEventListener('abort', cancel, { once: true });
    this.inFlight.set(controller, undefined);
    const wantsProgress = context.meta?.['progressToken'] !== undefined;
    let channel: Channel | undefined;
    try {
      if (context.signal.aborted) cancel();
      channel = await this.channels.channelFor(context);
      channel?.contexts.add(context);
      const session = channel === undefined ? shared : (channel.opened ?? (await this.opened(channel.session, controller.signal)));
      return await send(session, {
        signal: controller.signal,
        timeoutMs: this.settings.callTimeoutMs,
        resetTimeoutOnProgress: true,
        ...(wantsProgress ? { onProgress: ({ progress, total, message }) => context.progress({ progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) }) } : {}),
      });
    } catch (error) {
      const failure = this.inFlight.get(controller);
      if (failure !== undefined) throw failure;
      if (isSessionGone(error)) {
        if (channel === undefined) {
          // The member no longer knows the mesh's own session: take the member out and connect again.
          if (this.session === shared) this.fail('it ended the mesh\'s session');
          throw memberUnavailable(this.binding, 'it ended the mesh\'s session');
        }
        // The caller's session with the member ended there: once more (below, this attempt's bookkeeping done), on a new one.
        this.channels.forget(context.session, channel);
        if (retried) throw memberUnavailable(this.binding, 'it ended the caller\'s session twice in a row');
      } else {
        this.rethrow(error);
      }
    } finally {
      context.signal.removeEventListener('abort', cancel);
      this.inFlight.delete(controller);
      if (channel !== undefined) this.channels.release(context, channel);
    }
    return this.forward(context, send, true);
  }

  /** A failed request's error as the mesh answers it. */
  private rethrow(error: unknown): never {
    // The member's answer is passed on as the mesh's own (a peer's error would otherwise become a tool's isError).
    if (error instanceof WireError && error.origin === 'peer') throw new WireError(error.code, error.message, { data: error.data, cause: error });
    if (isLocalError(error, 'RequestTimeout')) {
      // A member that lets a call time out may be gone: check now rather than at the next interval.
      void this.check();
      throw memberUnavailable(this.binding, `it did not answer within ${this.settings.callTimeoutMs} ms`);
    }
    if (isLocalError(error, 'ConnectionClosed') || isLocalError(error, 'TransportFailed')) throw memberUnavailable(this.binding, error.message);
    throw error;
  }

  /**
   * Completion of one of the member's prompt arguments or template variables, on the shared session (a completer is
   * given no request to carry: completion asks nothing back). Undefined when the member does not complete.
   */
  completer(ref: CompletionReference, argument: string): Completer | undefined {
    if (this.session?.serverCapabilities?.completions === undefined) return undefined;
    return (value, { arguments: context }) => {
      const session = this.session;
      if (session === undefined) return Promise.reject(memberUnavailable(this.binding, 'it is not connected'));
      const asked = session.complete(ref, { name: argument, value }, context);
      return withTimeout(this.settings.clock, asked, this.settings.timeoutMs, 'completing').then(({ completion }) => completion.values);
    };
  }

  /** The caller's channel once open (within the timeout), or the reason it is not. */
  private async opened(session: Promise<ClientSession>, signal: AbortSignal): Promise<ClientSession> {
    try {
      return await withTimeout(this.settings.clock, session, this.settings.timeoutMs, 'opening a session for the caller', signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw memberUnavailable(this.binding, `a session for the caller could not be opened (${messageOf(error)})`);
    }
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const epoch = ++this.epoch;
    const { connection, clientInfo, timeoutMs } = this.settings;
    const { clock } = this.settings;
    const transport = createNatsClientTransport({ connection, name: this.member.binding, prefix: this.member.prefix, clock });
    const client = createClient({ ...clientInfo, era: 'legacy', session: { clock } });
    let session: ClientSession;
    try {
      session = await client.connect(transport, { initializeTimeoutMs: timeoutMs });
    } catch (error) {
      if (epoch === this.epoch) this.fail(`it could not be connected (${messageOf(error)})`);
      return;
    }
    if (epoch !== this.epoch || this.stopped) {
      void session.close().catch(() => undefined);
      return;
    }
    let catalog: MemberCatalog;
    try {
      catalog = await withTimeout(this.settings.clock, listMemberCatalog(session), timeoutMs, 'listing its catalog');
    } catch (error) {
      void session.close().catch(() => undefined);
      if (epoch === this.epoch) this.fail(`its catalog could not be listed (${messageOf(error)})`);
      return;
    }
    if (epoch !== this.epoch || this.stopped) {
      void session.close().catch(() => undefined);
      return;
    }
    this.session = session;
    this.retryMs = this.settings.retryMs;
    this.subscriptions.push(session.listChanged$.subscribe(() => this.relist()));
    void session.session.closed.then(() => {
      if (this.session === session) this.fail('its session closed');
    });
    this.healthTimer = this.settings.clock.setInterval(() => void this.check(), this.settings.intervalMs);
    // What the mesh's callers followed before the member went down, they follow again.
    this.watches.attach(session);
    this.listener.catalog(this, catalog, true);
  }

  /** Lists the member again; a burst of changes while listing makes one more listing, not one each. */
  private relist(): void {
    if (this.listing !== undefined) {
      this.relistPending = true;
      return;
    }
    const session = this.session;
    if (session === undefined) return;
    this.listing = (async () => {
      try {
        const catalog = await withTimeout(this.settings.clock, listMemberCatalog(session), this.settings.timeoutMs, 'listing its catalog');
        if (this.session === session) this.listener.catalog(this, catalog, false);
      } catch (error) {
        if (this.session === session) this.fail(`its catalog could not be listed (${messageOf(error)})`);
      } finally {
        this.listing = undefined;
        if (this.relistPending) {
          this.relistPending = false;
          this.relist();
        }
      }
    })();
  }

  /** One ping: no answer within the timeout takes the member out. */
  private async check(): Promise<void> {
    const session = this.session;
    if (session === undefined) return;
    try {
      await session.session.request('ping', {}, { timeoutMs: this.settings.timeoutMs });
    } catch (error) {
      if (this.session === session) this.fail(`it did not answer a ping (${messageOf(error)})`);
    }
  }

  /** The member stopped answering: withdraw it, fail what is in flight, try again later. */
  private fail(reason: string): void {
    if (this.stopped) return;
    this.teardown(memberUnavailable(this.binding, reason));
    this.listener.down(this, reason);
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    this.retryTimer = this.settings.clock.setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, wait);
  }

  private teardown(failure: WireError): void {
    this.epoch++;
    const session = this.session;
    const wasUp = session !== undefined;
    this.session = undefined;
    this.healthTimer?.cancel();
    this.healthTimer = undefined;
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions = [];
    this.watches.detach();
    if (this.stopped) this.watches.clear();
    this.channels.closeAll();
    for (const controller of [...this.inFlight.keys()]) {
      this.inFlight.set(controller, failure);
      controller.abort(failure);
    }
    if (wasUp) {
      this.listener.catalog(this, undefined, false);
      void session.close().catch(() => undefined);
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Rejects when `promise` has not settled within `ms` (or `signal` aborts first); neither timer nor listener outlives the race. */
function withTimeout<T>(clock: Clock, promise: Promise<T>, ms: number, what: string, signal?: AbortSignal): Promise<T> {
  let timer: TimerHandle | undefined;
  let onAbort: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = clock.setTimeout(() => reject(new Error(`no answer ${what} within ${ms} ms`)), ms);
    if (signal !== undefined) {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  return Promise.race([promise, deadline]).finally(() => {
    timer?.cancel();
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  });
}
