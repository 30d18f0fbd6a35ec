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

/** Samples this process's heap after collections while a run goes on. */
export class HeapWatch {
  readonly baseline: number;
  private max = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor() {
    this.baseline = heapAfterCollection();
  }

  /** Starts sampling (every 500 ms: each sample is a full collection). */
  begin(): void {
    this.max = 0;
    this.timer = setInterval(() => (this.max = Math.max(this.max, heapAfterCollection())), 500);
  }

  /** Stops sampling, takes a last sample; returns the largest and a violation when over the bound. */
  end(): { maxHeapBytes: number; violation?: string } {
    clearInterval(this.timer);
    this.max = Math.max(this.max, heapAfterCollection());
    const growth = this.max - this.baseline;
    return growth > HEAP_GROWTH_BOUND
      ? { maxHeapBytes: this.max, violation: `the heap grew by ${Math.round(growth / 2 ** 20)} MiB over its level before the runs (bound ${HEAP_GROWTH_BOUND / 2 ** 20} MiB)` }
      : { maxHeapBytes: this.max };
  }
}
