/**
 * The sessions of one lane (one era): opened before the run or at a rate during it, kept or churned (replaced
 * after so many calls or so long, once their calls are answered), and opened again when one is lost (its
 * server killed, its connection dropped), after a backoff or the hold a kill fault asks for. Calls go round
 * robin over the sessions that are up. Every session's answers are watched on the wire (wire-check.ts).
 */
import type { Subscription } from 'rxjs';
import type { ClientSession } from '../client/session-api.ts';
import { type McpClient, createClient } from '../client/create-client.ts';
import type { Transport } from '../core/transport.ts';
import type { Connector } from './connector.ts';
import { type AnswerAnomalies, watchAnswers } from './wire-check.ts';

export interface Slot {
  readonly index: number;
  state: 'opening' | 'up' | 'down' | 'draining' | 'closed';
  session: ClientSession | undefined;
  transport: Transport | undefined;
  pid: number | undefined;
  inFlight: number;
  /** Calls sent on the current session, and when it opened (for churn). */
  calls: number;
  openedAt: number;
  watch: Subscription | undefined;
}

export interface PoolOptions {
  readonly era: 'auto' | 'legacy' | 'modern';
  readonly sessions: number;
  readonly connectTimeoutMs: number;
  readonly maxInFlight: number;
  readonly churnCalls: number | undefined;
  readonly churnMs: number | undefined;
  readonly now: () => number;
  readonly say: (line: string) => void;
}

export interface PoolFigures {
  opened: number;
  lost: number;
  churned: number;
  failedOpens: number;
}

const BACKOFF_START_MS = 50;
const BACKOFF_MAX_MS = 1000;

export class SessionPool {
  readonly slots: Slot[];
  readonly figures: PoolFigures = { opened: 0, lost: 0, churned: 0, failedOpens: 0 };
  readonly anomalies: AnswerAnomalies = { duplicate: 0, unknownId: 0, late: 0 };
  /** The era the sessions speak, once one is up. */
  era: 'legacy' | 'modern' | undefined;
  private readonly live: Slot[] = [];
  private next = 0;
  private running = true;
  /** Sessions lost now wait until then before opening again (a kill fault's restart delay). */
  private holdUntil = 0;
  private readonly client: McpClient;
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  /** The first failure to open, kept to explain a run that could not start. */
  firstFailure: Error | undefined;

  constructor(
    private readonly connector: Connector,
    private readonly options: PoolOptions,
  ) {
    this.client = createClient({
      name: 'rxmcp-load',
      version: '0.1.0',
      era: options.era,
      probeTimeoutMs: options.connectTimeoutMs,
      // The run's own limit on calls in flight is the one that binds, not the session's.
      session: { limits: { maxOutgoingInFlight: options.maxInFlight + 64, maxOutboundQueue: options.maxInFlight + 64, requestTimeoutMs: 3_600_000 } },
    });
    this.slots = Array.from({ length: options.sessions }, (_, index) => ({
      index,
      state: 'down' as const,
      session: undefined,
      transport: undefined,
      pid: undefined,
      inFlight: 0,
      calls: 0,
      openedAt: 0,
      watch: undefined,
    }));
  }

  get up(): number {
    return this.live.length;
  }

  /** The pids of the processes this lane started (stdio children) whose sessions are up. */
  get livePids(): number[] {
    return this.slots.flatMap((slot) => (slot.pid !== undefined && (slot.state === 'up' || slot.state === 'draining') ? [slot.pid] : []));
  }

  /** The next session to send on, round robin, or undefined when none is up. */
  pick(): Slot | undefined {
    const live = this.live;
    if (live.length === 0) return undefined;
    if (this.next >= live.length) this.next = 0;
    return live[this.next++];
  }

  /** Opens every session, a few at a time; resolves once each had its first try (a failed one keeps trying). */
  async start(parallel = 8): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < this.slots.length) {
        const slot = this.slots[next++];
        if (slot !== undefined) await this.open(slot);
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, this.slots.length) }, worker));
  }

  /** Opens the first session now (resolving after its first try) and the others at `perSecond` after it. */
  async startAtRate(perSecond: number): Promise<void> {
    const [first, ...rest] = this.slots;
    if (first !== undefined) await this.open(first);
    rest.forEach((slot, index) => this.later(() => void this.open(slot), ((index + 1) * 1000) / perSecond));
  }

  /** Opens one slot's session; resolves once it is up or failed (a failed one tries again after a backoff). */
  open(slot: Slot, backoffMs = BACKOFF_START_MS): Promise<void> {
    if (!this.running || slot.state === 'opening' || slot.state === 'up') return Promise.resolve();
    slot.state = 'opening';
    return this.connect(slot).then(
      () => undefined,
      (error: unknown) => {
        this.figures.failedOpens++;
        this.firstFailure ??= error instanceof Error ? error : new Error(String(error));
        slot.state = 'down';
        if (!this.running) return;
        this.later(() => void this.open(slot, Math.min(BACKOFF_MAX_MS, backoffMs * 2)), Math.max(backoffMs, this.holdUntil - this.options.now()));
      },
    );
  }

  /** After a call was sent on `slot`. */
  sent(slot: Slot): void {
    slot.inFlight++;
    slot.calls++;
    const { churnCalls, churnMs } = this.options;
    if (slot.state === 'up' && ((churnCalls !== undefined && slot.calls >= churnCalls) || (churnMs !== undefined && this.options.now() - slot.openedAt >= churnMs))) {
      this.setState(slot, 'draining');
      if (slot.inFlight === 0) this.replace(slot);
    }
  }

  /** After a call sent on `slot` ended. */
  settled(slot: Slot): void {
    slot.inFlight--;
    if (slot.state === 'draining' && slot.inFlight === 0) this.replace(slot);
  }

  /** A kill fault: sessions lost from now on wait `ms` before they open again. */
  hold(ms: number): void {
    this.holdUntil = this.options.now() + ms;
  }

  /** Drops every connection at once (a fault): their transports closed under them; they open again. */
  dropAll(): number {
    let dropped = 0;
    for (const slot of this.slots) {
      if (slot.state !== 'up' || slot.transport === undefined) continue;
      dropped++;
      void slot.transport.close().catch(() => undefined);
    }
    return dropped;
  }

  /** Closes every session and stops opening new ones. */
  async close(): Promise<void> {
    this.running = false;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all(this.slots.map((slot) => this.closeSlot(slot)));
    await this.connector.close().catch(() => undefined);
  }

  private async connect(slot: Slot): Promise<void> {
    const opened = await this.connector.open();
    slot.transport = opened.transport;
    slot.pid = opened.pid;
    let session: ClientSession;
    try {
      session = await this.client.connect(opened.transport, { initializeTimeoutMs: this.options.connectTimeoutMs });
    } catch (error) {
      await opened.transport.close().catch(() => undefined);
      throw error;
    }
    if (!this.running) {
      await session.close().catch(() => undefined);
      await opened.transport.close().catch(() => undefined);
      return;
    }
    slot.session = session;
    slot.calls = 0;
    slot.inFlight = 0;
    slot.openedAt = this.options.now();
    slot.watch = watchAnswers(session.session, this.anomalies);
    this.era ??= session.session.era;
    this.figures.opened++;
    this.setState(slot, 'up');
    void session.session.closed.then((reason) => this.onClosed(slot, session, reason));
  }

  private onClosed(slot: Slot, session: ClientSession, reason: Error | undefined): void {
    if (slot.session !== session) return;
    slot.watch?.unsubscribe();
    slot.watch = undefined;
    slot.session = undefined;
    const wasServing = slot.state === 'up' || slot.state === 'draining';
    this.setState(slot, 'down');
    if (!this.running || !wasServing) return;
    this.figures.lost++;
    this.options.say(`session ${slot.index} lost${reason === undefined ? '' : `: ${reason.message}`}`);
    this.later(() => void this.open(slot), Math.max(0, this.holdUntil - this.options.now()));
  }

  /** A churned session: closed once its calls are answered, and a new one opened in its place. */
  private replace(slot: Slot): void {
    const session = slot.session;
    this.figures.churned++;
    this.setState(slot, 'closed');
    slot.session = undefined;
    slot.watch?.unsubscribe();
    slot.watch = undefined;
    const transport = slot.transport;
    void (async () => {
      await session?.close().catch(() => undefined);
      await transport?.close().catch(() => undefined);
      slot.state = 'down';
      if (this.running) await this.open(slot);
    })();
  }

  private async closeSlot(slot: Slot): Promise<void> {
    const session = slot.session;
    const transport = slot.transport;
    this.setState(slot, 'closed');
    slot.session = undefined;
    slot.watch?.unsubscribe();
    slot.watch = undefined;
    await session?.close().catch(() => undefined);
    await transport?.close().catch(() => undefined);
  }

  private setState(slot: Slot, state: Slot['state']): void {
    const wasLive = slot.state === 'up';
    slot.state = state;
    if (wasLive && state !== 'up') this.live.splice(this.live.indexOf(slot), 1);
    else if (!wasLive && state === 'up') this.live.push(slot);
  }

  private later(run: () => void, ms: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }
}
