/**
 * Lazy paging through a list method: nothing is requested until someone subscribes, pages are fetched one
 * after another, and a subscriber that has seen enough (`take(n)`, unsubscribe) stops the next fetch. A
 * server that repeats a cursor is cut off instead of looping forever.
 */
import { Observable } from 'rxjs';
import { LocalError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';

export type PageFetcher = (cursor: string | undefined) => Promise<JsonObject>;

export function pages$<T>(fetch: PageFetcher, itemsKey: string, maxPages = 10_000): Observable<T> {
  return new Observable<T>((subscriber) => {
    let active = true;
    const seen = new Set<string>();
    const next = async (cursor: string | undefined, count: number): Promise<void> => {
      const page = await fetch(cursor);
      if (!active) return;
      const items = page[itemsKey];
      if (!Array.isArray(items)) throw new LocalError('ProtocolViolation', `The list result has no "${itemsKey}" array`);
      for (const item of items) {
        if (!active) return;
        subscriber.next(item as T);
      }
      // The last item may have been the one the subscriber waited for (take(n) at a page boundary).
      if (!active) return;
      const nextCursor = page['nextCursor'];
      if (nextCursor === undefined) return subscriber.complete();
      if (typeof nextCursor !== 'string' || seen.has(nextCursor) || count >= maxPages) {
        throw new LocalError('ProtocolViolation', `The server's pagination does not end (cursor ${JSON.stringify(nextCursor)})`);
      }
      seen.add(nextCursor);
      return next(nextCursor, count + 1);
    };
    next(undefined, 1).catch((error: unknown) => {
      if (active) subscriber.error(error);
    });
    return () => {
      active = false;
    };
  });
}
