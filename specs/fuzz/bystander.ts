/**
 * What the in-process media check beside the traffic: a bystander, a second well-behaved client session on the
 * same server that lists and calls tools throughout (a request of both eras) and must keep getting answers in time; and the server
 * side's heap, sampled after collections, which must stay within HEAP_GROWTH_BOUND of its level at the start.
 */
import type { ClientSession } from '../../index.ts';
import { HEAP_GROWTH_BOUND, heapAfterCollection } from './under-test.ts';

/** How long one bystander request may take on a loaded machine while the fuzzed session is flooded. */
const BYSTANDER_ANSWER_MS = 5000;
const BYSTANDER_PERIOD_MS = 50;

export class Bystander {
  private failures: string[] = [];
  private calls = 0;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(private readonly session: ClientSession) {}

  start(): void {
    this.timer ??= setInterval(() => void this.tick(), BYSTANDER_PERIOD_MS);
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    const started = Date.now();
    try {
      const call = this.calls++ % 2 === 0 ? this.session.listTools() : this.session.callTool('fast', {});
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), BYSTANDER_ANSWER_MS)));
      const outcome = await Promise.race([call.then(() => 'answered' as const), late]).finally(() => clearTimeout(timer));
      if (outcome === 'late') this.failures.push(`the bystander session got no answer within ${BYSTANDER_ANSWER_MS} ms`);
    } catch (error) {
      this.failures.push(`the bystander session failed after ${Date.now() - started} ms: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.busy = false;
    }
  }

  /** Failures since the last call (at most a few, they repeat). */
  takeFailures(): string[] {
    const taken = this.failures.slice(0, 3);
    this.failures = [];
    return taken;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.session.close().catch(() => undefined);
  }
}

/**
 * This process's heap, for the media whose server runs in the test process. The client side lives here too (a
 * burst's pending requests and their answers), so the bound is held on what stays: the heap after a collection
 * once a run ended and its client went away, against the level before the first run; a server that keeps
 * anything per request or per closed session grows it run after run. The peak during runs is only reported.
 */
export class HeapWatch {
  readonly baseline: number;
  private max = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor() {
    this.baseline = heapAfterCollection();
  }

  /** Starts sampling the peak (every 2 s: each sample is a full collection). */
  begin(): void {
    this.timer = setInterval(() => (this.max = Math.max(this.max, heapAfterCollection())), 2000);
  }

  /** Stops sampling; returns the peak so far and a violation when the retained heap is over the bound. */
  end(): { maxHeapBytes: number; violation?: string } {
    clearInterval(this.timer);
    const retained = heapAfterCollection();
    this.max = Math.max(this.max, retained);
    const growth = retained - this.baseline;
    return growth > HEAP_GROWTH_BOUND
      ? { maxHeapBytes: this.max, violation: `the heap kept ${Math.round(growth / 2 ** 20)} MiB more than before the runs once this run ended (bound ${HEAP_GROWTH_BOUND / 2 ** 20} MiB)` }
      : { maxHeapBytes: this.max };
  }
}
