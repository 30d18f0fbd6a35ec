/**
 * The sessions an endpoint serves, by id: bounded in number, bound to the principal that opened them, and
 * expired when idle. A session is idle when no HTTP exchange of it is running (no request being answered, no
 * stream open) for `idleTimeoutMs`; it then closes, and its id answers 404 like any unknown one.
 *
 * Expiry costs an idle session two pointers, not a timer: the idle sessions are kept in a list in the order they
 * became idle (a session that starts an exchange leaves it, one whose last exchange ends goes to its tail). As the
 * timeout is the same for all, that is also the order in which they expire, so one timer, armed for the head's
 * expiry, is all the registry needs: when it fires, the sessions at the head that have been idle long enough
 * close, and it is armed again for the next one.
 */
import type { Clock, TimerHandle } from '../../../core/clock.ts';
import { LocalError } from '../../../core/errors.ts';
import type { HttpResponder } from './http-exchange.ts';

export type SessionKind = 'streamable' | 'legacy-sse';

export interface SessionEntry<T extends { close(reason?: LocalError): Promise<void> } = { close(reason?: LocalError): Promise<void> }> {
  readonly id: string;
  /** Who opened it (undefined: nobody authenticated). Only the same principal may use it. */
  readonly principal: string | undefined;
  readonly kind: SessionKind;
  readonly transport: T;
}

/** A registered session: its entry and its place in the idle list, in one object. */
class Registered implements SessionEntry {
  /** Exchanges running now; the session is in the idle list only while this is 0. */
  busy = 0;
  /** When the last exchange finished (the clock's time): the session expires `idleTimeoutMs` after. */
  lastActive: number;
  /** Neighbours in the idle list (undefined at its ends, and while not in it). */
  previous: Registered | undefined = undefined;
  next: Registered | undefined = undefined;

  constructor(
    readonly id: string,
    readonly principal: string | undefined,
    readonly kind: SessionKind,
    readonly transport: SessionEntry['transport'],
    now: number,
  ) {
    this.lastActive = now;
  }
}

export interface RegistryOptions {
  readonly maxSessions: number;
  /** 0 or Infinity: never expire. */
  readonly idleTimeoutMs: number;
  readonly clock: Clock;
}

export class SessionRegistry {
  private readonly sessions = new Map<string, Registered>();
  /** The idle list: the session idle longest first. */
  private head: Registered | undefined;
  private tail: Registered | undefined;
  /** The one expiry timer, armed while the idle list is not empty (it may fire early: it then re-arms). */
  private timer: TimerHandle | undefined;

  constructor(private readonly options: RegistryOptions) {}

  get size(): number {
    return this.sessions.size;
  }

  get full(): boolean {
    return this.sessions.size >= this.options.maxSessions;
  }

  /** Whether any session (of any kind or principal) has this id. */
  has(id: string): boolean {
    return this.sessions.has(id);
  }

  add(entry: SessionEntry): void {
    const registered = new Registered(entry.id, entry.principal, entry.kind, entry.transport, this.options.clock.now());
    this.sessions.set(entry.id, registered);
    this.becameIdle(registered);
  }

  /** The session `id` of `kind`, if it exists and belongs to `principal`. */
  get<T extends SessionEntry>(id: string, principal: string | undefined, kind: SessionKind): T | undefined {
    const entry = this.sessions.get(id);
    return entry !== undefined && entry.kind === kind && entry.principal === principal ? (entry as unknown as T) : undefined;
  }

  /** The session is busy until `res` finishes (its idle clock stops meanwhile). */
  hold(id: string, res: HttpResponder): void {
    const registered = this.sessions.get(id);
    if (registered === undefined) return;
    if (registered.busy++ === 0) this.unlist(registered);
    // A closure per exchange (short-lived) instead of one per session (held as long as the session).
    res.onFinished(() => this.release(registered));
  }

  /** Forgets session `id` (only if its transport is `transport`, when given: a later session may hold the id). */
  remove(id: string, transport?: SessionEntry['transport']): void {
    const registered = this.sessions.get(id);
    if (registered === undefined || (transport !== undefined && registered.transport !== transport)) return;
    this.unlist(registered);
    this.sessions.delete(id);
    // The last session gone: nothing to expire (an endpoint that served its sessions holds no timer).
    if (this.sessions.size === 0) this.stopTimer();
  }

  async closeAll(reason: LocalError): Promise<void> {
    await Promise.all(Array.from(this.sessions.values(), (registered) => registered.transport.close(reason)));
    this.sessions.clear();
    this.head = this.tail = undefined;
    this.stopTimer();
  }

  /** Ends one exchange of `registered`: once none runs, its idle time starts. */
  private release(registered: Registered): void {
    registered.busy--;
    if (registered.busy > 0 || this.sessions.get(registered.id) !== registered) return;
    registered.lastActive = this.options.clock.now();
    this.becameIdle(registered);
  }

  /** Puts `registered` at the tail of the idle list, and makes sure the timer runs. */
  private becameIdle(registered: Registered): void {
    const ms = this.options.idleTimeoutMs;
    if (!(ms > 0 && Number.isFinite(ms))) return;
    registered.previous = this.tail;
    registered.next = undefined;
    if (this.tail === undefined) this.head = registered;
    else this.tail.next = registered;
    this.tail = registered;
    // A timer already armed fires no later than this session's expiry (everyone listed before expires first).
    if (this.timer === undefined) this.arm(registered.lastActive + ms - this.options.clock.now());
  }

  private unlist(registered: Registered): void {
    const { previous, next } = registered;
    // Listed: the head, or after someone.
    if (previous === undefined && this.head !== registered) return;
    if (previous === undefined) this.head = next;
    else previous.next = next;
    if (next === undefined) this.tail = previous;
    else next.previous = previous;
    registered.previous = registered.next = undefined;
  }

  private arm(delay: number): void {
    this.timer = this.options.clock.setTimeout(() => this.expire(), Math.max(0, delay));
  }

  private stopTimer(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** The timer fired: the sessions idle for the whole `idleTimeoutMs` close; the timer waits for the next one. */
  private expire(): void {
    this.timer = undefined;
    const ms = this.options.idleTimeoutMs;
    const now = this.options.clock.now();
    for (let registered = this.head; registered !== undefined; registered = this.head) {
      const left = registered.lastActive + ms - now;
      if (left > 0) return this.arm(left);
      this.remove(registered.id);
      void registered.transport.close(new LocalError('ConnectionClosed', `The HTTP session expired after ${ms} ms without requests`));
    }
  }
}
