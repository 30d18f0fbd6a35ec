/**
 * What `createMesh` is given and what it says about its members: the member a discovery source announces, the
 * items of the union catalog, the naming rule, the per-caller filter and the health settings.
 */
import type { NatsConnection } from '@nats-io/nats-core';
import type { Observable } from 'rxjs';
import type { AccessRule } from '../actors/features/access.ts';
import type { AuthInfo } from '../core/auth.ts';
import type { Clock } from '../core/clock.ts';
import type { ServerOptions } from '../server/server-api.ts';
import type { WatchNatsServersOptions } from '../transports/nats/discovery/watch.ts';
import type { NatsIdentitySigner } from '../transports/nats/identity/identity-signer.ts';

/**
 * One server the mesh may join: an rxmcp server served on NATS with `serveNats`, or a stdio server bridged there
 * with `rxmcp bridge to-nats`.
 */
export interface MeshMember {
  /** The name the server is served under (`serveNats({ name })`): one subject token. */
  readonly binding: string;
  /** Its subject prefix (`serveNats({ prefix })`, default `mcp`). */
  readonly prefix: string;
  /** What the server said it is, when the source knows. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /** Changes whenever the member's catalog changes: a new value makes the mesh list the member again. */
  readonly catalogRevision?: string;
}

/** The four kinds of item a member serves. */
export type MeshItemKind = 'tool' | 'prompt' | 'resource' | 'resourceTemplate';

/** An item of a member, as the mesh serves it. */
export interface MeshItem {
  readonly kind: MeshItemKind;
  /** Its name on the member (a tool's or prompt's name, a resource's URI, a template's URI template). */
  readonly name: string;
  /** The name the mesh serves it under (see {@link MeshNaming}). */
  readonly exposedName: string;
}

/**
 * How the mesh names items:
 * - `collisions` (default): a name only one member serves is kept as it is; a name several serve becomes
 *   `<binding>__<name>` for tools and prompts, and `mesh://<binding>/<uri>` for resources and templates, on every
 *   member that serves it;
 * - `always`: every tool and prompt is `<binding>__<name>` and every resource `mesh://<binding>/<uri>`;
 * - a function of the member, the item's own name, its kind and whether another member serves the same name.
 */
export type MeshNaming = 'collisions' | 'always' | ((member: MeshMember, name: string, kind: MeshItemKind, colliding: boolean) => string);

/** Who is calling the mesh, as its transport authenticated them. */
export interface MeshCaller {
  readonly auth: AuthInfo | undefined;
}

/** When the mesh checks that a member still answers, and how soon it tries one that did not again. */
export interface MeshHealthOptions {
  /** Ping each member this often (default 5000 ms). */
  readonly intervalMs?: number;
  /** A ping, a connection or a listing not answered within this long takes the member out (default 2000 ms). */
  readonly timeoutMs?: number;
  /** Try a member that was taken out again after this long (default 2000 ms, doubling up to 30 s). */
  readonly retryMs?: number;
}

export interface MeshOptions {
  /** The NATS connection members are reached on; the mesh never closes it. */
  readonly connection: NatsConnection;
  /**
   * The servers there are, each emission the whole set (a discovery source, or a fixed `of([...])`). A member
   * that leaves the set is taken out; one whose `catalogRevision` changes is listed again. Default: the rxmcp
   * servers announced on `connection`'s NATS system (`watchNatsServers` of `rxmcp/nats`, with `discovery`), one
   * member per binding, the mesh's own name left out.
   */
  readonly members$?: Observable<readonly MeshMember[]>;
  /** How the default `members$` watches the NATS system (default: a round every 5 s, answers gathered for 250 ms). */
  readonly discovery?: WatchNatsServersOptions;
  /** The mesh's own server: name, version and any other server option (default name `rxmcp-mesh`). */
  readonly server?: Partial<ServerOptions>;
  /** Which members to join (default: all). */
  readonly select?: (member: MeshMember) => boolean;
  /** The naming rule (default `collisions`). */
  readonly naming?: MeshNaming;
  /**
   * Whether a caller sees an item (and so may use it): hidden items are missing from its lists, and calling one by
   * name is answered as for an unknown item.
   */
  readonly visible?: (caller: MeshCaller, member: MeshMember, item: MeshItem) => boolean;
  /**
   * Scopes (or a predicate) a caller needs for an item, as a registration's `requires`: a caller without them does
   * not see it, and a call is refused with -32043 (insufficient scope) so it can step up. Beside `visible`, one rule
   * decides: an item either of them refuses is answered as unknown.
   */
  readonly requires?: (member: MeshMember, item: MeshItem) => AccessRule | undefined;
  readonly health?: MeshHealthOptions;
  /**
   * The clock the mesh's own timers run on: health pings, retries, and the deadlines of connecting, listing and
   * completing (default the system clock). Give `TestClock` of `rxmcp/testing` to drive them without sleeping.
   */
  readonly clock?: Clock;
  /**
   * Carries each authenticated caller to the members as an identity assertion (`createIdentitySigner` of
   * `rxmcp/nats`; the members verify it with `serveNats({ identity })`): their handlers see the caller as `ctx.auth`.
   * The caller's token never leaves the mesh. Without it the members see the mesh, not the caller.
   */
  readonly identity?: NatsIdentitySigner;
  /** How long a forwarded request may go without progress (default 60 000 ms). */
  readonly callTimeoutMs?: number;
  /** Told when a member joins, leaves, is taken out or comes back, and when an item cannot be served. */
  readonly onEvent?: (event: MeshEvent) => void;
}

/** What happened to a member. */
export type MeshEvent =
  | { readonly type: 'joined'; readonly member: MeshMember; readonly items: number }
  | { readonly type: 'relisted'; readonly member: MeshMember; readonly items: number }
  | { readonly type: 'down'; readonly member: MeshMember; readonly reason: string }
  | { readonly type: 'left'; readonly member: MeshMember }
  | { readonly type: 'skipped'; readonly member: MeshMember; readonly item: MeshItem; readonly reason: string };
