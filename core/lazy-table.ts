/**
 * A table keyed like a Map whose Map exists only while it holds something. An empty Map costs its owner about
 * 180 bytes of heap (the object and its hash table), and a session holds two (the requests it runs, those it
 * awaits answers to), empty whenever it is idle: with this the empty state costs one field. The Map is made on the
 * first insert and dropped with the last entry; everything else reads as a Map's.
 */
export class LazyTable<K, V> implements Iterable<[K, V]> {
  private map: Map<K, V> | undefined;

  get size(): number {
    return this.map?.size ?? 0;
  }

  get(key: K): V | undefined {
    return this.map?.get(key);
  }

  has(key: K): boolean {
    return this.map?.has(key) ?? false;
  }

  set(key: K, value: V): this {
    (this.map ??= new Map()).set(key, value);
    return this;
  }

  delete(key: K): boolean {
    const map = this.map;
    if (map === undefined || !map.delete(key)) return false;
    if (map.size === 0) this.map = undefined;
    return true;
  }

  clear(): void {
    this.map = undefined;
  }

  values(): IterableIterator<V> {
    return (this.map ?? noEntries).values() as IterableIterator<V>;
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return (this.map ?? noEntries).entries() as IterableIterator<[K, V]>;
  }
}

/** What an empty table iterates (never written to). */
const noEntries: ReadonlyMap<never, never> = new Map<never, never>();
