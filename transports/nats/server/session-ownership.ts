/**
 * Whether this process owns a legacy session, by its record, and what it does when it learns it does not.
 *
 * One owner at a time: a process can be taken from while it is alive but cut off from NATS. The taker confirms
 * its claim by the stream leader's record and tells the previous owner (its `taken` subject); an owner that hears
 * it, or finds another owner in the record after a reconnection, lets the session go. A record that cannot be
 * read when ownership is to be confirmed (the bucket electing a leader) is read again later, a bounded number of
 * times.
 */
import type { TimerHandle } from '../../../core/clock.ts';
import { isNoRespondersError } from '../headers.ts';
import { WRITE_SETTLE_MS } from '../leader-read.ts';
import type { ServerSubjects } from '../subjects.ts';
import type { ServingHost } from './served-connection.ts';
import type { SessionRecords } from './session-records.ts';
import type { StateWarn } from './session-state-warning.ts';

/** The wait before an owner that had no responders is pinged again (see `ownerAlive`). */
const OWNER_RECHECK_MS = 250;
/**
 * The pauses before a session's record is read again when it could not be read after a reconnection: about
 * half a minute in all, on top of each read's own retries through a leader election.
 */
const RECORD_RECHECK_PAUSES_MS = [1000, 2000, 4000, 8000, 15_000] as const;
/** The longest session id a `taken` notice may carry (ours are 32 characters). */
const MAX_NOTICE_BYTES = 256;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** What the sessions of this process give the ownership checks. */
export interface OwnedSessions {
  /** Whether `sessionId` is served here. */
  isServed(sessionId: string): boolean;
  /** Stops serving `sessionId`: another process owns it now. */
  letGo(sessionId: string): void;
  readonly warn: StateWarn;
}

export class SessionOwnership {
  /** Sessions whose record is to be read again (it could not be read when it had to be), with their timer. */
  private readonly rechecks = new Map<string, TimerHandle>();
  /** Sessions whose ownership is being read after a `taken` notice: one read at a time each. */
  private readonly confirming = new Set<string>();

  constructor(
    private readonly host: ServingHost,
    private readonly subjects: ServerSubjects,
    private readonly records: SessionRecords | undefined,
    private readonly ownerPingMs: number,
    private readonly sessions: OwnedSessions,
  ) {}

  /**
   * Whether this process owns `sessionId` by its record: `false` when another process does or the record is gone,
   * `undefined` when it cannot be read.
   */
  async owns(sessionId: string): Promise<boolean | undefined> {
    if (this.records === undefined) return true;
    try {
      return (await this.records.get(sessionId))?.record.owner === this.host.processId;
    } catch {
      return undefined;
    }
  }

  /**
   * Whether this process's claim of `sessionId` stands. A JetStream cluster may accept two compare-and-sets made
   * at once on one revision (nats-server checks the expected revision before the write's consensus, not in it:
   * before 2.9.21 for any two writes in flight, later still across a change of the stream's leader); both are
   * stored, and the record is whichever came last. So a claimant waits a moment for a concurrent write to land,
   * then reads the record as the stream's leader holds it: only the process it names serves the session. A read
   * that fails leaves the claim standing, to be read again later (`recheck`).
   */
  async confirmClaim(sessionId: string): Promise<boolean> {
    await new Promise<void>((resolve) => this.host.clock.setTimeout(resolve, WRITE_SETTLE_MS));
    try {
      const found = await this.records!.getFromLeader(sessionId);
      return found?.record.owner === this.host.processId;
    } catch {
      this.recheck(sessionId);
      return true;
    }
  }

  /**
   * Whether the owner is alive. Only "no responders" proves an owner gone (a slow answer is not a death), and it
   * is believed only when a second ping, `OWNER_RECHECK_MS` later, says it again: right after a NATS restart
   * every process reconnects at once, and an owner whose subscriptions are not back yet would otherwise be taken
   * from although it is about to confirm its sessions (both would then serve one session).
   */
  async ownerAlive(owner: string): Promise<boolean> {
    if (await this.ownerAnswers(owner)) return true;
    await new Promise<void>((resolve) => this.host.clock.setTimeout(resolve, OWNER_RECHECK_MS));
    return this.ownerAnswers(owner);
  }

  private async ownerAnswers(owner: string): Promise<boolean> {
    try {
      await this.host.connection.request(this.subjects.ping(owner), new Uint8Array(0), { timeout: this.ownerPingMs });
      return true;
    } catch (error) {
      return !isNoRespondersError(error);
    }
  }

  /** Tells `owner` that this process took `sessionId` over from it. */
  tellTaken(owner: string, sessionId: string): void {
    try {
      this.host.connection.publish(this.subjects.taken(owner), encoder.encode(sessionId));
    } catch {
      // The connection went away: the owner, if alive, finds the record naming this process when it reconnects.
    }
  }

  /**
   * Another process says it took a session over (on this process's `taken` subject). Believed only when the
   * record says so too: a notice proves nothing by itself.
   */
  async taken(data: Uint8Array): Promise<void> {
    if (data.length > MAX_NOTICE_BYTES) return;
    const sessionId = decoder.decode(data);
    if (!this.sessions.isServed(sessionId) || this.confirming.has(sessionId)) return;
    this.confirming.add(sessionId);
    try {
      const owned = await this.owns(sessionId);
      if (owned === false) this.sessions.letGo(sessionId);
      else if (owned === undefined) this.recheck(sessionId);
    } finally {
      this.confirming.delete(sessionId);
    }
  }

  /** Reads `sessionId`'s record again after a pause (the `attempt`-th), and lets the session go if it is not ours. */
  recheck(sessionId: string, attempt = 0): void {
    if (attempt === 0 && this.rechecks.has(sessionId)) return;
    const pause = RECORD_RECHECK_PAUSES_MS[attempt];
    if (pause === undefined) {
      this.rechecks.delete(sessionId);
      this.sessions.warn({ sessionId, kind: 'not-confirmed', message: 'its record could not be read when its ownership was to be confirmed (after a NATS reconnection, a claim or a takeover notice); it is still served here, though another process may have taken it over meanwhile' });
      return;
    }
    this.rechecks.set(sessionId, this.host.clock.setTimeout(() => {
      void (async () => {
        if (!this.sessions.isServed(sessionId)) return void this.rechecks.delete(sessionId);
        const owned = await this.owns(sessionId);
        // Let go (or closed) meanwhile: its timer is gone with it.
        if (!this.rechecks.has(sessionId)) return;
        if (owned === undefined) return this.recheck(sessionId, attempt + 1);
        this.rechecks.delete(sessionId);
        if (!owned) this.sessions.letGo(sessionId);
      })();
    }, pause));
  }

  /** `sessionId` is no longer served here: its pending re-read goes. */
  forget(sessionId: string): void {
    this.rechecks.get(sessionId)?.cancel();
    this.rechecks.delete(sessionId);
  }

  /** Every pending re-read goes (the process stops serving). */
  forgetAll(): void {
    for (const timer of this.rechecks.values()) timer.cancel();
    this.rechecks.clear();
  }
}
