/**
 * The sessions an endpoint serves, by id: bounded in number, bound to the principal that opened them, and
 * expired when idle. A session is idle when no HTTP exchange of it is running (no request being answered, no
 * stream open) for `idleTimeoutMs`; it then closes, and its id answers 404 like any unknown one.
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

interface Registered {
  readonly entry: SessionEntry;
  busy: number;
  idle: TimerHandle | undefined;
  /** When the last exchange finished (the clock's time): the idle timer measures from here. */
  lastActive: number;
  /** Ends one exchange (a method, so holding the session costs no closure per request). */
  readonly release: () => void;
}

export interface RegistryOptions {
  readonly maxSessions: number;
  /** 0 or Infinity: never expire. */
  readonly idleTimeoutMs: number;
  readonly clock: Clock;
}

export class SessionRegistry {
  private readonly sessions = new Map<string, Registered>();

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
    const registered: Registered = {
      entry,
      busy: 0,
      idle: undefined,
      lastActive: this.options.clock.now(),
      release: () => {
        registered.busy--;
        if (registered.busy > 0 || this.sessions.get(entry.id) !== registered) return;
        registered.lastActive = this.options.clock.now();
        // The timer, once armed, slides: it is not re-armed per request, only looked at when it fires.
        if (registered.idle === undefined) this.armIdle(registered, this.options.idleTimeoutMs);
      },
    };
    this.sessions.set(entry.id, registered);
    this.armIdle(registered, this.options.idleTimeoutMs);
  }

  /** The session `id` of `kind`, if it exists and belongs to `principal`. */
  get<T extends SessionEntry>(id: string, principal: string | undefined, kind: SessionKind): T | undefined {
    const entry = this.sessions.get(id)?.entry;
    return entry !== undefined && entry.kind === kind && entry.principal === principal ? (entry as T) : undefined;
  }

  /** The session is busy until `res` finishes (its idle clock stops meanwhile). */
  hold(id: string, res: HttpResponder): void {
    const registered = this.sessions.get(id);
    if (registered === undefined) return;
    registered.busy++;
    res.onFinished(registered.release);
  }

  /** Forgets session `id` (only if its transport is `transport`, when given: a later session may hold the id). */
  remove(id: string, transport?: SessionEntry['transport']): void {
    const registered = this.sessions.get(id);
    if (registered === undefined || (transport !== undefined && registered.entry.transport !== transport)) return;
    registered.idle?.cancel();
    this.sessions.delete(id);
  }

  async closeAll(reason: LocalError): Promise<void> {
    await Promise.all(Array.from(this.sessions.values(), (registered) => registered.entry.transport.close(reason)));
    this.sessions.clear();
  }

  /**
   * Arms the idle timer for `delay`. When it fires, a busy session is left alone (its last exchange re-arms
   * it), one active since is given the rest of its time, and one idle for the whole `idleTimeoutMs` expires.
   */
  private armIdle(registered: Registered, delay: number): void {
    const ms = this.options.idleTimeoutMs;
    if (!(ms > 0 && Number.isFinite(ms))) return;
    registered.idle?.cancel();
    registered.idle = this.options.clock.setTimeout(() => {
      registered.idle = undefined;
      if (registered.busy > 0 || this.sessions.get(registered.entry.id) !== registered) return;
      const left = registered.lastActive + ms - this.options.clock.now();
      if (left > 0) return this.armIdle(registered, left);
      this.remove(registered.entry.id);
      void registered.entry.transport.close(new LocalError('ConnectionClosed', `The HTTP session expired after ${ms} ms without requests`));
    }, delay);
  }
}
