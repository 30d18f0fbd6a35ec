/**
 * The table of the requests a session runs, which can say when it empties: closing waits for the last running
 * request to end, and is told so by the table instead of looking again and again.
 */
import { LazyTable } from '../core/lazy-table.ts';

export class RunningRequests<K, V> extends LazyTable<K, V> {
  /** Called when the last entry is deleted; set only while a closing session drains (no slot otherwise). */
  declare onEmptied: (() => void) | undefined;

  override delete(key: K): boolean {
    if (!super.delete(key)) return false;
    if (this.size === 0) this.onEmptied?.();
    return true;
  }
}
