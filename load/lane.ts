/**
 * One lane of a run: the calls of one era, over that era's sessions. Open loop: each tick sends every call that
 * is due (the schedule says when; a call that leaves late keeps its due time), unless the limit on calls in
 * flight is reached or no session is up, in which case it waits and is late. Closed loop: as many calls in
 * flight as the level asks, the next sent as one ends. Each call's answer is checked and the call counted once.
 */
import { LocalError, WireError } from '../core/errors.ts';
import type { Accounts, CallScopes } from './accounts.ts';
import type { FaultRecord } from './faults.ts';
import type { PreparedOperation } from './operations.ts';
import type { Schedule } from './schedule.ts';
import type { SelfWatch } from './self-watch.ts';
import type { SessionPool, Slot } from './sessions.ts';
import { HUNG, type Outcome } from './tally.ts';
import type { CallValues } from './templates.ts';

/** Calls sent in one tick at most: a backlog after a stall goes out over a few ticks, not in one long turn. */
const MAX_PER_TICK = 2000;
/**
 * A session with this many frames waiting for its transport is not sent more until they drain: the server is
 * not reading as fast as the schedule sends, which shows as lateness (the server's doing, not the tester's).
 */
const CONGESTED_FRAMES = 256;
/** Wrong answers kept as examples. */
const WRONG_SAMPLES = 5;

export interface WrongSample {
  readonly operation: string;
  readonly reason: string;
  readonly expected: string;
  readonly got: string;
}

export interface LaneSettings {
  readonly era: string;
  readonly index: number;
  readonly run: string;
  readonly mode: 'open' | 'closed';
  readonly hangMs: number;
  readonly maxInFlight: number;
  readonly now: () => number;
}

class Call implements CallValues {
  settled = false;
  /** The fault that struck while this call was in flight, if one did. */
  fault: FaultRecord | undefined;

  constructor(
    private readonly lane: Lane,
    readonly slot: Slot,
    readonly operation: PreparedOperation,
    readonly token: string,
    readonly seq: number,
    readonly session: number,
    readonly dueAt: number,
    readonly sentAt: number,
    readonly scopes: CallScopes,
  ) {}

  answered(result: unknown): void {
    if (!this.settled) this.lane.end(this, this.operation.check(result, this));
  }

  failed(error: unknown): void {
    if (!this.settled) this.lane.end(this, outcomeOf(error));
  }
}

function outcomeOf(error: unknown): Outcome {
  if (error instanceof LocalError && error.code === 'RequestTimeout') return HUNG;
  if (error instanceof WireError) return { kind: 'error', code: String(error.code), message: error.message };
  if (error instanceof LocalError) return { kind: 'error', code: error.code, message: error.message };
  return { kind: 'error', code: error instanceof Error ? error.name : 'Error', message: error instanceof Error ? error.message : String(error) };
}

export class Lane {
  private seq = 0;
  /** Open loop: the number of the next call due, and when. */
  private k = 0;
  private nextDue: number | undefined;
  private readonly inFlight = new Set<Call>();
  private operations: readonly PreparedOperation[] = [];
  /** Cumulative weights, for drawing an operation. */
  private cumulative: number[] = [];
  private stopped = false;
  readonly wrongSamples: WrongSample[] = [];
  private whenIdle: (() => void) | undefined;

  constructor(
    readonly settings: LaneSettings,
    readonly pool: SessionPool,
    private readonly schedule: Schedule,
    private readonly accounts: Accounts,
    private readonly self: SelfWatch,
  ) {
    this.nextDue = settings.mode === 'open' ? schedule.timeOf(0) : undefined;
  }

  get operationLabels(): string[] {
    return this.operations.map((operation) => operation.label);
  }

  /** Marks every call in flight as struck by `fault`; returns how many there are. */
  markInFlight(fault: FaultRecord): number {
    for (const call of this.inFlight) call.fault = fault;
    return this.inFlight.size;
  }

  get calls(): number {
    return this.inFlight.size;
  }

  setOperations(operations: readonly PreparedOperation[], weights: readonly number[]): void {
    this.operations = operations;
    let sum = 0;
    this.cumulative = weights.map((weight) => (sum += weight));
  }

  /** Sends what is due at `now` (ms from the start). */
  /** Sends what is due by `now` (open loop) or fills the window (closed loop); never a call due at `dueBefore` or later. */
  tick(now: number, dueBefore = Infinity): void {
    if (this.stopped) return;
    if (this.settings.mode === 'closed') return this.fill(now);
    let sentThisTick = 0;
    while (this.nextDue !== undefined && this.nextDue <= now && this.nextDue < dueBefore && sentThisTick < MAX_PER_TICK) {
      if (this.inFlight.size >= this.settings.maxInFlight) {
        this.self.heldBack = true;
        return;
      }
      const slot = this.writable();
      if (slot === undefined) {
        this.self.heldBack = true;
        return;
      }
      if (!this.send(slot, this.nextDue, now)) return;
      sentThisTick++;
      this.nextDue = this.schedule.timeOf(++this.k);
    }
  }

  /** Stops sending; resolves once every call in flight has ended, or after `waitMs` (the rest then end as `ending`). */
  async stop(waitMs: number, ending: Outcome): Promise<void> {
    this.stopped = true;
    if (this.inFlight.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.whenIdle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.whenIdle = undefined;
    for (const call of [...this.inFlight]) this.end(call, ending);
  }

  /** A call ended: counted once, its slot told, and in a closed loop the next one sent. */
  end(call: Call, outcome: Outcome): void {
    call.settled = true;
    this.inFlight.delete(call);
    const now = this.settings.now();
    this.accounts.settled(call.scopes, outcome, now - call.dueAt, now - call.sentAt);
    this.pool.settled(call.slot);
    if (call.fault !== undefined) call.fault.inFlight[outcome.kind === 'error' ? 'errors' : outcome.kind]++;
    if (outcome.kind === 'wrong' && this.wrongSamples.length < WRONG_SAMPLES) {
      this.wrongSamples.push({ operation: call.operation.label, reason: outcome.reason, expected: outcome.expected, got: outcome.got });
    }
    if (this.stopped) {
      if (this.inFlight.size === 0) this.whenIdle?.();
      return;
    }
    // The next calls go out from a macrotask, once for all the calls that ended meanwhile: calls failing at once
    // (a session refusing them as it closes) cannot then keep the loop in microtasks.
    if (this.settings.mode === 'closed' && !this.refillQueued) {
      this.refillQueued = true;
      setImmediate(this.refill);
    }
  }

  private refillQueued = false;
  private readonly refill = (): void => {
    this.refillQueued = false;
    if (!this.stopped) this.fill(this.settings.now());
  };

  private fill(now: number): void {
    const wanted = Math.min(this.schedule.concurrencyAt(now), this.settings.maxInFlight);
    if (now >= this.schedule.endMs) return;
    while (this.inFlight.size < wanted) {
      const slot = this.writable();
      if (slot === undefined || !this.send(slot, now, now)) return;
    }
  }

  /** The next session up whose transport keeps up, round robin, or undefined when none does. */
  private writable(): Slot | undefined {
    for (let tries = this.pool.up; tries > 0; tries--) {
      const slot = this.pool.pick();
      if (slot?.session !== undefined && slot.session.session.queuedFrames < CONGESTED_FRAMES) return slot;
    }
    return undefined;
  }

  /** Sends one call on `slot`; false when the slot has no session after all. */
  private send(slot: Slot, dueAt: number, now: number): boolean {
    const session = slot.session;
    if (session === undefined) return false;
    const seq = this.seq++;
    const operation = this.draw();
    const scopes = this.accounts.sent(dueAt, this.settings.era);
    const call = new Call(this, slot, operation, `${this.settings.run}-${this.settings.index}-${seq}_`, seq, slot.index, dueAt, now, scopes);
    if (this.settings.mode === 'open') this.self.recordSlip(now - dueAt, scopes.measured);
    this.inFlight.add(call);
    this.pool.sent(slot);
    let pending: Promise<unknown>;
    try {
      pending = operation.send(session, call, this.settings.hangMs);
    } catch (error) {
      call.failed(error);
      return true;
    }
    pending.then(
      (result) => call.answered(result),
      (error: unknown) => call.failed(error),
    );
    return true;
  }

  private draw(): PreparedOperation {
    const operations = this.operations;
    if (operations.length === 1) return operations[0] as PreparedOperation;
    const cumulative = this.cumulative;
    const pick = Math.random() * (cumulative[cumulative.length - 1] ?? 1);
    let index = 0;
    while (index < cumulative.length - 1 && pick >= (cumulative[index] ?? 0)) index++;
    return operations[index] as PreparedOperation;
  }
}
