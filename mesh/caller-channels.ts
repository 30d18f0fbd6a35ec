/**
 * Caller channels: the member sessions that carry one mesh caller's requests, so that what a member asks back
 * during a request (elicitation, sampling, roots) reaches that caller, and what it logs reaches it too. The
 * member's server requests arrive on a session, not on a request, so the session is the caller's own: one per
 * legacy-era caller session (opened at its first request to the member, closed when that session closes), one per
 * request for a modern-era caller that declared a feature the member could ask for (its requests share nothing).
 * The client of a channel declares exactly what the caller declared, and answers with the caller's request in
 * flight on it (the most recent, when several are).
 */
import type { NatsConnection } from '@nats-io/nats-core';
import type { FeatureContext } from '../actors/features/feature-context.ts';
import type { SessionView } from '../actors/handler-types.ts';
import { createClient } from '../client/create-client.ts';
import type { ClientSession } from '../client/session-api.ts';
import type { Clock } from '../core/clock.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { WireError } from '../core/errors.ts';
import { isLegacyRevision } from '../core/protocol/versions.ts';
import { createNatsClientTransport } from '../transports/nats/client/index.ts';
import type { NatsIdentitySigner } from '../transports/nats/identity/identity-signer.ts';
import type { MeshMember } from './options.ts';

/** Channels one member holds at once; past that a caller's requests take the member's shared session. */
const MAX_CHANNELS = 256;

/** What a channel's client reads while it is being opened. */
interface ChannelState {
  /** The identity assertion its messages carry now: the caller of its latest request (never the caller's token). */
  assertion: string | undefined;
  /** The caller's requests in flight on it, oldest first. */
  readonly contexts: Set<FeatureContext>;
}

export interface Channel extends ChannelState {
  readonly session: Promise<ClientSession>;
  /** The session once it is open: the requests after the first go to it without waiting on the promise. */
  opened?: ClientSession;
  /** Closed when its one request ends (a modern caller's), not when its caller session closes. */
  readonly perRequest: boolean;
}

export interface ChannelSettings {
  readonly connection: NatsConnection;
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly timeoutMs: number;
  /** Signs the caller's identity for the members (docs/nats-binding.md, "Identity across NATS"). */
  readonly identity: NatsIdentitySigner | undefined;
  readonly clock: Clock;
}

/** Whether the caller declared something a member could ask it for during a request. */
function asksBack(context: FeatureContext): boolean {
  const { elicitation, sampling, roots } = context.client.capabilities;
  return elicitation !== undefined || sampling !== undefined || roots !== undefined;
}

export class CallerChannels {
  private readonly channels = new Map<SessionView, Channel>();

  constructor(
    private readonly member: () => MeshMember,
    private readonly settings: ChannelSettings,
  ) {}

  /**
   * The channel for `context`'s caller, opened if need be, or undefined where the shared session serves: a modern
   * caller that cannot be asked anything and has no identity to carry, or a member holding its maximum of channels.
   * With an identity signer, an authenticated caller's requests always take a channel that carries its assertion.
   */
  async channelFor(context: FeatureContext): Promise<Channel | undefined> {
    const assertion = await this.assertionFor(context);
    const view = context.session;
    const held = this.channels.get(view);
    if (held !== undefined) {
      held.assertion = assertion;
      return held;
    }
    const legacy = view.revision === undefined || isLegacyRevision(view.revision);
    if (!legacy && !asksBack(context) && assertion === undefined) return undefined;
    if (this.channels.size >= MAX_CHANNELS && !this.evictIdle()) {
      // The shared session carries no identity: an authenticated caller is refused rather than served as the mesh.
      if (assertion !== undefined) throw new WireError(ErrorCode.InternalError, 'The mesh holds its maximum of caller sessions with this member; try again later');
      return undefined;
    }
    const state: ChannelState = { assertion, contexts: new Set() };
    const channel: Channel = Object.assign(state, { session: this.open(context, state), perRequest: !legacy });
    this.channels.set(view, channel);
    // A channel that could not be opened, or whose session ended (the member closes sessions idle for long), is
    // forgotten, so the caller's next request opens another.
    const forget = (): void => {
      if (this.channels.get(view) === channel) this.channels.delete(view);
    };
    channel.session.then((session) => {
      channel.opened = session;
      return session.session.closed;
    }).then(forget, forget);
    return channel;
  }

  /** A request on the channel ended. */
  release(context: FeatureContext, channel: Channel): void {
    channel.contexts.delete(context);
    if (channel.perRequest && channel.contexts.size === 0) this.close(context.session);
  }

  /** The channel's session ended on the member: the caller's next request opens another. */
  forget(view: SessionView, channel: Channel): void {
    if (this.channels.get(view) !== channel) return;
    this.channels.delete(view);
    void channel.session.then((session) => session.close()).catch(() => undefined);
  }

  /** The caller's session closed. */
  close(view: SessionView): void {
    const channel = this.channels.get(view);
    if (channel === undefined) return;
    this.channels.delete(view);
    void channel.session.then((session) => session.close()).catch(() => undefined);
  }

  closeAll(): void {
    for (const view of [...this.channels.keys()]) this.close(view);
  }

  private evictIdle(): boolean {
    for (const [view, channel] of this.channels) {
      if (channel.contexts.size > 0) continue;
      this.close(view);
      return true;
    }
    return false;
  }

  /** The caller's identity assertion for this member (undefined: no signer, or nobody authenticated). */
  private async assertionFor(context: FeatureContext): Promise<string | undefined> {
    const signer = this.settings.identity;
    if (signer === undefined || context.auth === undefined) return undefined;
    const member = this.member();
    return signer.assertionFor(context.auth, `${member.prefix}.${member.binding}`);
  }

  private async open(first: FeatureContext, channel: ChannelState): Promise<ClientSession> {
    const { contexts } = channel;
    const { elicitation, sampling, roots } = first.client.capabilities;
    /** The caller's request the member's question belongs to: the latest in flight on this channel. */
    const current = (): FeatureContext => {
      const latest = [...contexts].at(-1);
      if (latest === undefined) throw new WireError(ErrorCode.InternalError, 'No request of this caller is in flight through the mesh to answer it');
      return latest;
    };
    const client = createClient({
      ...this.settings.clientInfo,
      era: 'legacy',
      session: { clock: this.settings.clock },
      ...(elicitation === undefined
        ? {}
        : {
            elicitation: {
              form: (params) => current().elicit(params),
              ...(elicitation.url === undefined ? {} : { url: (params) => current().elicit(params) }),
            },
          }),
      ...(sampling === undefined ? {} : { sampling: (params) => current().sample(params), samplingTools: sampling.tools !== undefined }),
      ...(roots === undefined ? {} : { roots: async () => [...(await current().roots())] }),
    });
    const member = this.member();
    const transport = createNatsClientTransport({
      connection: this.settings.connection,
      name: member.binding,
      prefix: member.prefix,
      clock: this.settings.clock,
      identity: () => channel.assertion,
    });
    const session = await client.connect(transport, { initializeTimeoutMs: this.settings.timeoutMs });
    // What the member logs on the caller's session is the caller's request's log (at the level the caller set).
    session.logs$.subscribe(({ level, data, logger }) => {
      const latest = [...contexts].at(-1);
      latest?.log(level, data, logger);
    });
    return session;
  }
}
