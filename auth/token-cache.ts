/**
 * Verified tokens by their text, so a caller that sends the same token again costs a map lookup instead of a
 * signature check or an introspection round. Bounded: at most `maxEntries` (the oldest entry leaves first), each
 * valid until the earlier of the token's expiry and `maxAgeMs` after it was verified (a revoked token is
 * believed for at most that long). Held in memory only; never logged.
 */
export class TokenCache<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly until: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly maxAgeMs: number,
  ) {}

  get(token: string, now: number): V | undefined {
    const entry = this.entries.get(token);
    if (entry === undefined) return undefined;
    if (entry.until > now) return entry.value;
    this.entries.delete(token);
    return undefined;
  }

  /** `expiresAt`: when the token stops being valid (ms since the epoch), if it says. */
  set(token: string, value: V, now: number, expiresAt: number | undefined): void {
    if (this.maxEntries <= 0 || this.maxAgeMs <= 0) return;
    const until = Math.min(now + this.maxAgeMs, expiresAt ?? Number.POSITIVE_INFINITY);
    if (until <= now) return;
    this.entries.delete(token);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(token, { value, until });
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Remembers ids (DPoP proof `jti`s) for a while, to refuse a second use; bounded like {@link TokenCache}. */
export class SeenIds {
  private readonly seen = new Map<string, number>();

  constructor(private readonly maxEntries: number) {}

  /** False when `id` was seen and has not expired yet; otherwise records it until `until`. */
  firstUse(id: string, now: number, until: number): boolean {
    const previous = this.seen.get(id);
    if (previous !== undefined && previous > now) return false;
    this.seen.delete(id);
    if (this.seen.size >= this.maxEntries) {
      // The oldest id goes: a proof that old is refused by its `iat` window anyway, when the window is shorter
      // than the time `maxEntries` proofs take to arrive (size the cache for the traffic).
      const oldest = this.seen.keys().next();
      if (oldest.done !== true) this.seen.delete(oldest.value);
    }
    this.seen.set(id, until);
    return true;
  }
}
