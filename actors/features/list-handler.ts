/**
 * The paginated list methods (`tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`):
 * pages come from the registry's cache, and the result object of each page is built once, so a list costs
 * the same for the ten-thousandth session as for the first. Items with an access rule (`requires`) are left out
 * of the lists of callers they do not admit; callers holding the same relevant scopes share one filtered list.
 */
import { decodeCursor, type Page } from '../../core/catalog/pagination.ts';
import type { Registry } from '../../core/catalog/registry.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { RequestHandler } from '../handler-types.ts';
import { type AccessRule, type AccessSummary, admits, audienceOf, summarize } from './access.ts';

export function listHandler<V extends { readonly access?: AccessRule | undefined }, W>(registry: Registry<string, V, W>, resultKey: string, pageSize: number): RequestHandler {
  const results = new WeakMap<Page<W>, JsonObject>();
  let summary: { readonly revision: number; readonly access: AccessSummary } | undefined;
  const accessNow = (): AccessSummary => {
    if (summary?.revision !== registry.revision) summary = { revision: registry.revision, access: summarize(mapIterable(registry.values(), (entry) => entry.access)) };
    return summary.access;
  };
  return (params, request) => {
    const cursor = params?.['cursor'];
    let offset = 0;
    if (cursor !== undefined) {
      const position = decodeCursor(cursor, registry.name);
      if (position === undefined) throw new WireError(ErrorCode.InvalidParams, 'Invalid params: the cursor is not one this server issued for this list');
      if (position.revision !== registry.revision) {
        // Serving the old offset from the new list would skip or repeat items without anyone knowing.
        throw new WireError(ErrorCode.InvalidParams, 'Invalid params: the list changed since this cursor was issued; list again from the start');
      }
      offset = position.offset;
    }
    const access = accessNow();
    const auth = request.auth;
    const page = access.guarded ? registry.pageFor(audienceOf(access, auth), (entry) => admits(entry.access, auth), offset, pageSize) : registry.page(offset, pageSize);
    let result = results.get(page);
    if (result === undefined) {
      result = Object.freeze(page.nextCursor === undefined ? { [resultKey]: page.items } : { [resultKey]: page.items, nextCursor: page.nextCursor });
      results.set(page, result);
    }
    return result;
  };
}

function* mapIterable<T, U>(items: Iterable<T>, map: (item: T) => U): Iterable<U> {
  for (const item of items) yield map(item);
}
