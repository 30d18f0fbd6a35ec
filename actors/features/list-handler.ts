/**
 * The paginated list methods (`tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`):
 * pages come from the registry's cache, and the result object of each page is built once, so a list costs
 * the same for the ten-thousandth session as for the first.
 */
import { decodeCursor, type Page } from '../../core/catalog/pagination.ts';
import type { Registry } from '../../core/catalog/registry.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { RequestHandler } from '../handler-types.ts';

export function listHandler<V, W>(registry: Registry<string, V, W>, resultKey: string, pageSize: number): RequestHandler {
  const results = new WeakMap<Page<W>, JsonObject>();
  return (params) => {
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
    const page = registry.page(offset, pageSize);
    let result = results.get(page);
    if (result === undefined) {
      result = Object.freeze(page.nextCursor === undefined ? { [resultKey]: page.items } : { [resultKey]: page.items, nextCursor: page.nextCursor });
      results.set(page, result);
    }
    return result;
  };
}
