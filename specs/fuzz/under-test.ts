/**
 * What a medium's reliability harness offers the properties: the traffic bounds it can take, and a way to run
 * one scenario against a real server on that medium, returning every broken promise.
 */
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import type { RenderOptions } from './script.ts';
import type { Scenario, TrafficBounds } from './traffic.ts';

export interface RunResult {
  readonly violations: readonly string[];
  readonly framesSent: number;
  /** The largest heap (after a collection) seen on the server side during the run, in bytes. */
  readonly maxHeapBytes: number;
}

export interface TransportUnderTest {
  /** For reports: "stdio", "http legacy", ... */
  readonly name: string;
  readonly bounds: TrafficBounds;
  readonly render: RenderOptions;
  run(scenario: Scenario): Promise<RunResult>;
  /** Stops every server, process and client it started. */
  dispose(): Promise<void>;
}

/**
 * The heap bound every medium is held to, sampled after a collection: a stdio server process's heap never grows
 * more than this over its level at start, during the whole run (a burst of 10,000 requests against bounds of
 * 256 in flight and 1,024 queued frames needs a few MiB; a queue without a bound needs far more); an in-process
 * server's heap keeps no more than this over its level before the first run once each run ended (see HeapWatch).
 */
export const HEAP_GROWTH_BOUND = 64 * 1024 * 1024;

let collector: (() => void) | undefined;

/** `gc()` in this process, even when node was started without --expose-gc (node:test children are). */
export function collectGarbage(): void {
  if (collector === undefined) {
    const own = (globalThis as { gc?: () => void }).gc;
    if (own !== undefined) collector = own;
    else {
      setFlagsFromString('--expose-gc');
      collector = runInNewContext('gc') as () => void;
    }
  }
  collector();
}

/** The heap in use after a full collection. */
export function heapAfterCollection(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}
