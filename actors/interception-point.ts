/**
 * Where a server or a client plugs its interceptors in: its handler tables (the requests it serves) and the
 * interception of the requests it sends. Each `use` composes the chains again from the raw handlers, so the
 * tables always hold, per method, the raw handler (no interceptor covers it) or one composed chain.
 */
import type { RequestHandler } from './handler-types.ts';
import { interceptHandlers } from './intercepted-incoming.ts';
import { adopt } from './intercepted-request.ts';
import { OutgoingInterceptors } from './intercepted-outgoing.ts';
import { type Interceptor, InterceptorList, type InterceptorScope } from './interceptors.ts';
import type { InterceptableHandlerTable } from './outgoing-request.ts';

export class InterceptionPoint {
  private readonly list = new InterceptorList(adopt);
  /** The tables as they were before the first interceptor, taken then. */
  private raw: ReadonlyMap<string, RequestHandler>[] | undefined;
  private outgoing: OutgoingInterceptors | undefined;

  /**
   * @param tables the request handler tables to rewrap in place (one per era where they differ)
   * @param host   the handler table whose sessions send requests (gets the outgoing interception)
   */
  constructor(
    private readonly tables: readonly Map<string, RequestHandler>[],
    private readonly host: InterceptableHandlerTable,
  ) {}

  use(interceptor: Interceptor, scope?: InterceptorScope): { remove(): void } {
    this.list.add(interceptor, scope);
    this.rebuild();
    let removed = false;
    return {
      remove: () => {
        if (removed) return;
        removed = true;
        this.list.remove(interceptor, scope);
        this.rebuild();
      },
    };
  }

  private rebuild(): void {
    const raw = (this.raw ??= this.tables.map((table) => new Map(table)));
    this.tables.forEach((table, index) => {
      for (const [method, handler] of interceptHandlers(raw[index] as ReadonlyMap<string, RequestHandler>, this.list)) table.set(method, handler);
    });
    if (this.list.size === 0) {
      this.host.outgoing = undefined;
      this.outgoing = undefined;
      return;
    }
    this.outgoing ??= new OutgoingInterceptors(this.list);
    this.outgoing.reset();
    this.host.outgoing = this.outgoing;
  }
}
