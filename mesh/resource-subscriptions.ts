/**
 * Resource subscriptions through the mesh. The mesh's server keeps its callers' subscriptions as any rxmcp server
 * does (2025-11-25 `resources/subscribe`, 2026-07-28 `subscriptions/listen` with `resourceSubscriptions`), so it
 * decides who hears an update, under the mesh's own `visible`/`requires` rules, as each update is told. This part
 * sees those requests go by (an interceptor) and follows each subscribed URI on the member that serves it:
 *
 * - a holder is a legacy caller session (until it unsubscribes or closes) or one listen (until it ends); each
 *   holds a URI once;
 * - per member, one subscription per member URI on the mesh's own session with it, shared by every holder
 *   (mesh/member-link.ts `watch`), released by the last; so what the member is asked is bounded by the distinct
 *   URIs followed (and a cap per member), whatever the number of callers;
 * - the member's `notifications/resources/updated` is told under every exposed URI held for it (the name the
 *   caller subscribed with: a prefixed resource, or a URI of a renamed template);
 * - a legacy subscription is answered only once the member accepted it (a member that refuses answers the
 *   caller); a URI no member serves now is -32002, one whose member offers no subscriptions -32601. A listen
 *   agrees only to the URIs its members accepted: its acknowledgement leaves the others out.
 */
import { Observable, type Subscription, finalize, tap, throwError } from 'rxjs';
import type { InterceptedRequest, Interceptor, InterceptorNext } from '../actors/interceptors.ts';
import { InterceptedSessionFacts } from '../actors/interceptors.ts';
import type { RequestEvent } from '../actors/handler-types.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { WireError } from '../core/errors.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import { readSubscriptionFilter } from '../core/protocol/modern.ts';
import type { McpServer } from '../server/server-api.ts';
import type { McpSession } from '../session/session-core.ts';
import type { MemberLink } from './member-link.ts';
import type { ResourceRoute } from './union-catalog.ts';

/** One exposed URI a holder follows, and the member watch behind it. */
interface Holding {
  readonly route: ResourceRoute;
  readonly release: () => void;
}

export const SUBSCRIPTION_METHODS = ['resources/subscribe', 'resources/unsubscribe', 'subscriptions/listen'] as const;

export class MeshSubscriptions {
  /** By holder (a legacy session, a listen), the exposed URIs it follows. */
  private readonly holders = new Map<string, Map<string, Holding>>();
  /** By member and member URI, the exposed URIs held for it (counted): the names its updates are told under. */
  private readonly exposed = new Map<MemberLink, Map<string, Map<string, number>>>();
  private listens = 0;

  constructor(
    private readonly server: McpServer,
    private readonly route: (uri: string) => ResourceRoute | undefined,
    /** The most URIs one listen may name (the server's own limit: a longer one is refused before anything is followed). */
    private readonly maxPerListen: number,
  ) {}

  readonly interceptor: Interceptor = (request, next) => {
    switch (request.method) {
      case 'resources/subscribe':
        return this.subscribe(request, next);
      case 'resources/unsubscribe': {
        const uri = request.params?.['uri'];
        return next(request).pipe(tap((event) => {
          if (event.type === 'result' && typeof uri === 'string') this.drop(sessionHolder(request), uri);
        }));
      }
      case 'subscriptions/listen':
        return this.listen(request, next);
      default:
        return next(request);
    }
  };

  /** The member said `memberUri` changed: every mesh URI held for it is told to the mesh's subscribers. */
  updated(link: MemberLink, memberUri: string): void {
    const names = this.exposed.get(link)?.get(memberUri);
    if (names === undefined) return;
    for (const uri of [...names.keys()]) this.server.notifyResourceUpdated(uri);
  }

  /** A legacy caller session closed: what it followed is released. */
  sessionClosed(session: McpSession): void {
    this.dropHolder(`session:${new InterceptedSessionFacts(session, 'legacy', undefined).id ?? ''}`);
  }

  clear(): void {
    for (const holder of [...this.holders.keys()]) this.dropHolder(holder);
  }

  private subscribe(request: InterceptedRequest, next: InterceptorNext): Observable<RequestEvent> {
    const uri = request.params?.['uri'];
    const holder = sessionHolder(request);
    // A malformed request is the handler's to refuse; a URI held already is held once.
    if (typeof uri !== 'string' || this.holders.get(holder)?.has(uri) === true) return next(request);
    const route = this.route(uri);
    if (route === undefined) return throwError(() => new WireError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { data: { uri } }));
    if (!route.link.offersSubscriptions) {
      return throwError(() => new WireError(ErrorCode.MethodNotFound, `Method not found: mesh member "${route.link.binding}" does not offer resource subscriptions`));
    }
    return new Observable<RequestEvent>((subscriber) => {
      let release: (() => void) | undefined;
      let kept = false;
      let closed = false;
      let answered: Subscription | undefined;
      route.link.watch(route.memberUri).then((watching) => {
        if (closed) return watching();
        release = watching;
        answered = next(request).subscribe({
          next: (event) => {
            if (event.type === 'result') {
              kept = true;
              this.hold(holder, uri, route, watching);
            }
            subscriber.next(event);
          },
          error: (error: unknown) => subscriber.error(error),
          complete: () => subscriber.complete(),
        });
      }, (error: unknown) => subscriber.error(error));
      return () => {
        closed = true;
        answered?.unsubscribe();
        // Refused (its access, the session's cap) or cancelled: the member watch goes too.
        if (!kept) release?.();
      };
    });
  }

  private listen(request: InterceptedRequest, next: InterceptorNext): Observable<RequestEvent> {
    const filter = readSubscriptionFilter(request.params);
    const uris = [...new Set(filter?.resourceSubscriptions ?? [])];
    // Nothing to follow, or more than the server allows (its handler refuses the listen): nothing is followed.
    if (filter === undefined || uris.length === 0 || (filter.resourceSubscriptions?.length ?? 0) > this.maxPerListen) return next(request);
    const holder = `listen:${++this.listens}`;
    return new Observable<RequestEvent>((subscriber) => {
      let closed = false;
      let answered: Subscription | undefined;
      const accepted = uris.map(async (uri) => {
        const route = this.route(uri);
        if (route === undefined || !route.link.offersSubscriptions) return undefined;
        try {
          const release = await route.link.watch(route.memberUri);
          if (closed) return release();
          this.hold(holder, uri, route, release);
          return uri;
        } catch {
          return undefined;
        }
      });
      void Promise.all(accepted).then((kept) => {
        if (closed) return;
        const notifications = { ...(request.params?.['notifications'] as JsonObject), resourceSubscriptions: kept.filter((uri): uri is string => uri !== undefined) };
        answered = next(request.with({ params: { ...request.params, notifications } })).subscribe(subscriber);
      });
      return () => {
        closed = true;
        answered?.unsubscribe();
        this.dropHolder(holder);
      };
    }).pipe(finalize(() => this.dropHolder(holder)));
  }

  private hold(holder: string, uri: string, route: ResourceRoute, release: () => void): void {
    let held = this.holders.get(holder);
    if (held === undefined) this.holders.set(holder, (held = new Map()));
    if (held.has(uri)) return release();
    held.set(uri, { route, release });
    let byUri = this.exposed.get(route.link);
    if (byUri === undefined) this.exposed.set(route.link, (byUri = new Map()));
    let names = byUri.get(route.memberUri);
    if (names === undefined) byUri.set(route.memberUri, (names = new Map()));
    names.set(uri, (names.get(uri) ?? 0) + 1);
  }

  private drop(holder: string, uri: string): void {
    const held = this.holders.get(holder);
    const holding = held?.get(uri);
    if (held === undefined || holding === undefined) return;
    held.delete(uri);
    if (held.size === 0) this.holders.delete(holder);
    holding.release();
    const { link, memberUri } = holding.route;
    const byUri = this.exposed.get(link);
    const names = byUri?.get(memberUri);
    if (byUri === undefined || names === undefined) return;
    const count = (names.get(uri) ?? 1) - 1;
    if (count > 0) names.set(uri, count);
    else names.delete(uri);
    if (names.size === 0) byUri.delete(memberUri);
    if (byUri.size === 0) this.exposed.delete(link);
  }

  private dropHolder(holder: string): void {
    const held = this.holders.get(holder);
    if (held === undefined) return;
    for (const uri of [...held.keys()]) this.drop(holder, uri);
  }
}

/** The holder a legacy request's subscription belongs to: its session (by the id interceptors see it under). */
function sessionHolder(request: InterceptedRequest): string {
  return `session:${request.session.id ?? ''}`;
}
