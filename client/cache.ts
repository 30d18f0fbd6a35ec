/**
 * The modern era's caching hints, honoured on the client: a complete result of a list, a read or discovery
 * that came with `ttlMs > 0` is reused until it expires, unless the server said that list changed (or that
 * resource was updated) in between. Results of multi round-trip retries are never cached (they answer one
 * user's input). One cache per connection, so `private` results never cross authorization contexts.
 */
import type { Clock } from '../core/clock.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import { cacheLists } from '../core/protocol/declarations/index.ts';
import { resourcesRead } from '../core/protocol/declarations/resources.ts';

/** Entries kept at most; the oldest goes first. */
const MAX_ENTRIES = 512;

/** What each cacheable method's results go stale with, from the method declarations. */
const listOfMethod: ReadonlyMap<string, string> = cacheLists();

export class ResultCache {
  private readonly entries = new Map<string, { readonly result: JsonObject; readonly expires: number; readonly list: string }>();

  constructor(private readonly clock: Clock) {}

  static key(method: string, target: string | undefined): string | undefined {
    return !listOfMethod.has(method) ? undefined : `${method}\u0000${target ?? ''}`;
  }

  get(key: string): JsonObject | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires > this.clock.now()) return entry.result;
    this.entries.delete(key);
    return undefined;
  }

  /** Keeps `result` for its `ttlMs` when it is complete and the server allows it (negative or absent: not at all). */
  put(key: string, method: string, result: JsonObject): void {
    const ttl = result['ttlMs'];
    const type = result['resultType'];
    if (typeof ttl !== 'number' || !(ttl > 0) || (type !== undefined && type !== 'complete')) return;
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { result, expires: this.clock.now() + ttl, list: listOfMethod.get(method) ?? method });
  }

  /** A list changed (`tools`, `prompts`, `resources`): every page of it is stale. */
  invalidateList(list: string): void {
    for (const [key, entry] of this.entries) if (entry.list === list) this.entries.delete(key);
  }

  /** A resource changed: its cached read is stale. */
  invalidateRead(uri: string): void {
    this.entries.delete(`${resourcesRead.method}\u0000${uri}`);
  }

  clear(): void {
    this.entries.clear();
  }
}
