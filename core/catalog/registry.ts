/**
 * An ordered registry of catalog items (tools, resources, prompts...) shared by every session of a server.
 *
 * Items are kept in registration order (deterministic lists). Every change bumps a revision and is
 * announced once per microtask on `changed$`, however many items changed in it, so a burst of
 * registrations produces one `list_changed` per session. List pages are built lazily and cached until the
 * next change: serving `tools/list` costs the same whether one session asks or ten thousand do.
 */
import { type Observable, Subject } from 'rxjs';
import { type Page, pageOf } from './pagination.ts';

/** Distinct filtered lists kept per revision (each a distinct set of relevant scopes among callers). */
const MAX_AUDIENCES = 256;

export class Registry<K, V, W = V> {
  private readonly items = new Map<K, V>();
  private readonly changes = new Subject<void>();
  private announced = true;
  private revisionNumber = 0;
  private listCache: readonly W[] | undefined;
  private readonly pageCache = new Map<string, Page<W>>();
  /** Filtered lists by audience (see `pageFor`), until the next change. */
  private readonly audienceCache = new Map<string, readonly W[]>();

  /**
   * @param name   the list's name, bound into its cursors
   * @param toWire the item as it appears in list results (built once per change, not per request)
   */
  constructor(readonly name: string, private readonly toWire: (item: V) => W) {}

  get size(): number {
    return this.items.size;
  }

  get revision(): number {
    return this.revisionNumber;
  }

  /** One emission per microtask in which the registry changed. */
  get changed$(): Observable<void> {
    return this.changes.asObservable();
  }

  get(key: K): V | undefined {
    return this.items.get(key);
  }

  has(key: K): boolean {
    return this.items.has(key);
  }

  values(): IterableIterator<V> {
    return this.items.values();
  }

  /** Adds or replaces an item (a replaced item keeps its position). */
  set(key: K, value: V): void {
    this.items.set(key, value);
    this.touch();
  }

  delete(key: K): boolean {
    const removed = this.items.delete(key);
    if (removed) this.touch();
    return removed;
  }

  /** The wire form of every item, in order. */
  list(): readonly W[] {
    this.listCache ??= Object.freeze(Array.from(this.items.values(), this.toWire));
    return this.listCache;
  }

  page(offset: number, pageSize: number): Page<W> {
    const key = `${offset}/${pageSize}`;
    let page = this.pageCache.get(key);
    if (page === undefined) {
      page = pageOf(this.list(), this.name, this.revisionNumber, offset, pageSize);
      this.pageCache.set(key, page);
    }
    return page;
  }

  /**
   * A page of the items `admit` lets through. Callers that share an `audience` key see the same items, so their
   * list and pages are built once (up to {@link MAX_AUDIENCES} keys per revision; more are built per call, as
   * is every list without a key).
   */
  pageFor(audience: string | undefined, admit: (item: V) => boolean, offset: number, pageSize: number): Page<W> {
    if (audience === undefined) return pageOf(this.filtered(admit), this.name, this.revisionNumber, offset, pageSize);
    let list = this.audienceCache.get(audience);
    if (list === undefined) {
      list = this.filtered(admit);
      if (this.audienceCache.size >= MAX_AUDIENCES) return pageOf(list, this.name, this.revisionNumber, offset, pageSize);
      this.audienceCache.set(audience, list);
    }
    const key = `${audience}|${offset}/${pageSize}`;
    let page = this.pageCache.get(key);
    if (page === undefined) {
      page = pageOf(list, this.name, this.revisionNumber, offset, pageSize);
      this.pageCache.set(key, page);
    }
    return page;
  }

  private filtered(admit: (item: V) => boolean): readonly W[] {
    const list: W[] = [];
    for (const item of this.items.values()) if (admit(item)) list.push(this.toWire(item));
    return Object.freeze(list);
  }

  private touch(): void {
    this.revisionNumber++;
    this.listCache = undefined;
    this.pageCache.clear();
    this.audienceCache.clear();
    if (!this.announced) return;
    this.announced = false;
    queueMicrotask(() => {
      this.announced = true;
      this.changes.next();
    });
  }
}
