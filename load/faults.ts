/**
 * Chaos on a schedule: at its time each fault opens a window of its own, does its harm (SIGKILL the server's
 * processes, SIGSTOP them and SIGCONT them later, or drop every connection from this side), and the window ends
 * when the server answers a call correctly again after the harm is over; the window after it runs to the next
 * boundary. The calls due in each window are counted as in every other, so before, during and after a fault read
 * alike. Only the processes this run started, or the one named by pid, are ever signalled.
 */
import type { Accounts } from './accounts.ts';
import type { Fault } from './options.ts';
import type { SessionPool } from './sessions.ts';
import { formatAt, formatMs } from './units.ts';

/** What a fault did, as the result tells it. */
export interface FaultRecord {
  readonly kind: Fault['kind'];
  readonly label: string;
  /** When it began, ms from the start. */
  readonly atMs: number;
  /** When the harm was over (the kill, the SIGCONT, the drop), ms from the start. */
  releasedAtMs: number | undefined;
  /** When a call was answered correctly again, ms from the start; undefined if never within the run. */
  recoveredAtMs: number | undefined;
  /** The processes signalled, or the connections dropped. */
  readonly targets: number;
  /**
   * How the calls in flight when it struck ended (they were due before it, so their window is the one before):
   * those lost to a kill or a drop show here.
   */
  readonly inFlight: { calls: number; ok: number; errors: number; wrong: number; hung: number };
  /** Why nothing was done, if nothing was. */
  readonly skipped?: string;
}

export interface FaultContext {
  readonly now: () => number;
  /** The server processes now: this run's stdio children that are up, and the pid given. */
  readonly pids: () => number[];
  readonly pools: readonly SessionPool[];
  readonly accounts: Accounts;
  readonly say: (line: string) => void;
  /** Marks the calls in flight now as the fault's: their ends are counted in its record too. */
  readonly markInFlight: (record: FaultRecord) => number;
}

export class FaultPlan {
  readonly records: FaultRecord[] = [];
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private readonly paused = new Set<number>();
  private recovering: FaultRecord | undefined;

  constructor(
    private readonly faults: readonly Fault[],
    private readonly context: FaultContext,
  ) {}

  /** Arms every fault, `at` ms from the start (the start being now minus `elapsed`). */
  arm(elapsed: number): void {
    for (const fault of this.faults) this.later(() => this.apply(fault), Math.max(0, fault.atMs - elapsed));
  }

  /** An ok answer at `now`: the fault being recovered from is over. */
  answeredOk(now: number): void {
    const record = this.recovering;
    if (record === undefined || record.releasedAtMs === undefined || now < record.releasedAtMs) return;
    record.recoveredAtMs = now;
    this.recovering = undefined;
    this.context.accounts.openWindow(`after ${record.label}`, 'after-fault', now);
    this.context.say(`${record.label}: answered again after ${formatMs(now - record.atMs)}`);
  }

  /** Whether a fault is waiting for its recovery (the run's books then watch ok answers). */
  get watching(): boolean {
    return this.recovering !== undefined;
  }

  /** Cancels what is still armed and lets every paused process go on. */
  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.resume();
  }

  private apply(fault: Fault): void {
    const { now, pids, pools, accounts, say } = this.context;
    const at = now();
    const label = `${fault.kind} at ${formatAt(at)}`;
    accounts.openWindow(label, 'fault', at);
    let record: FaultRecord;
    switch (fault.kind) {
      case 'kill': {
        const targets = pids();
        for (const pool of pools) pool.hold(fault.restartAfterMs ?? 0);
        for (const pid of targets) signal(pid, 'SIGKILL');
        record = { kind: 'kill', label, atMs: at, releasedAtMs: at, recoveredAtMs: undefined, inFlight: { calls: 0, ok: 0, errors: 0, wrong: 0, hung: 0 }, targets: targets.length, ...(targets.length === 0 ? { skipped: 'no server process was up' } : {}) };
        say(`${label}: SIGKILL to ${targets.join(', ') || 'no process'}`);
        break;
      }
      case 'pause': {
        const targets = pids();
        for (const pid of targets) if (signal(pid, 'SIGSTOP')) this.paused.add(pid);
        record = { kind: 'pause', label, atMs: at, releasedAtMs: undefined, recoveredAtMs: undefined, inFlight: { calls: 0, ok: 0, errors: 0, wrong: 0, hung: 0 }, targets: targets.length, ...(targets.length === 0 ? { skipped: 'no server process was up' } : {}) };
        say(`${label}: SIGSTOP to ${targets.join(', ') || 'no process'} for ${formatMs(fault.forMs)}`);
        const paused = record;
        this.later(() => {
          this.resume();
          paused.releasedAtMs = now();
          say(`${label}: SIGCONT`);
        }, fault.forMs);
        break;
      }
      case 'drop': {
        const dropped = pools.reduce((total, pool) => total + pool.dropAll(), 0);
        record = { kind: 'drop', label, atMs: at, releasedAtMs: at, recoveredAtMs: undefined, inFlight: { calls: 0, ok: 0, errors: 0, wrong: 0, hung: 0 }, targets: dropped };
        say(`${label}: dropped ${dropped} connection${dropped === 1 ? '' : 's'}`);
        break;
      }
    }
    record.inFlight.calls = this.context.markInFlight(record);
    this.records.push(record);
    this.recovering = record;
  }

  private resume(): void {
    for (const pid of this.paused) signal(pid, 'SIGCONT');
    this.paused.clear();
  }

  private later(run: () => void, ms: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}
