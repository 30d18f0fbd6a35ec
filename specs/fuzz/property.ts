/**
 * The reliability property over one medium: for every generated scenario, the server keeps every promise the
 * checker knows. Failures print fast-check's seed and path, so `FUZZ_SEED=<seed> FUZZ_PATH=<path>` replays the
 * failing case (shrunk, when shrinking ran) against the same spec.
 */
import fc from 'fast-check';
import { type Scenario, frameCount, scenarioArbitrary } from './traffic.ts';
import type { RunResult, TransportUnderTest } from './under-test.ts';

export interface PropertyOptions {
  readonly numRuns: number;
  /** Stop at the first failure without shrinking (the bounded runs inside `npm test` have no time to shrink). */
  readonly endOnFailure?: boolean;
  /** Shrinking and running stop after this long (the case found so far is reported). */
  readonly timeLimitMs?: number;
  /** Narrows the scenarios (one era, a fixed prelude...). */
  readonly scenarios?: (scenarios: fc.Arbitrary<Scenario>) => fc.Arbitrary<Scenario>;
  readonly onRun?: (scenario: Scenario, result: RunResult) => void;
  /** A run that has not finished after this long is a failure of its own: something waits forever (default 40 s). */
  readonly runLimitMs?: number;
}

/** The seed and path to replay from the environment, when set. */
export function replayFromEnvironment(): { seed?: number; path?: string } {
  const seed = process.env['FUZZ_SEED'];
  const path = process.env['FUZZ_PATH'];
  return { ...(seed === undefined ? {} : { seed: Number(seed) }), ...(path === undefined ? {} : { path }) };
}

export class ReliabilityError extends Error {
  constructor(
    readonly transport: string,
    readonly violations: readonly string[],
  ) {
    super(`${transport}: ${violations.join('\n  ')}`);
  }
}

/** Runs the property; returns fast-check's details (so the long run can count) and throws on a failure. */
export async function assertReliable(under: TransportUnderTest, options: PropertyOptions): Promise<fc.RunDetails<[Scenario]>> {
  const base = scenarioArbitrary(under.bounds);
  const scenarios = options.scenarios === undefined ? base : options.scenarios(base);
  const runLimitMs = options.runLimitMs ?? 40_000;
  const property = fc.asyncProperty(scenarios, async (scenario) => {
    const result = await withinLimit(under.run(scenario), runLimitMs);
    options.onRun?.(scenario, result);
    if (result.violations.length > 0) throw new ReliabilityError(under.name, result.violations);
  });
  const replay = replayFromEnvironment();
  const details = await fc.check(property, {
    numRuns: options.numRuns,
    endOnFailure: options.endOnFailure ?? false,
    ...(options.timeLimitMs === undefined ? {} : { interruptAfterTimeLimit: options.timeLimitMs }),
    ...replay,
  });
  if (details.failed) {
    const scenario = details.counterexample?.[0];
    const message = [
      `${under.name}: the reliability property failed after ${details.numRuns} runs (${details.numShrinks} shrinks)`,
      `replay: FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath ?? ''}`,
      `scenario (${scenario === undefined ? 0 : frameCount(scenario)} frames): ${describeScenario(scenario)}`,
      `violations: ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
    ].join('\n');
    throw new Error(message);
  }
  return details;
}

/** The run's result, or a violation saying it hung (the run is left behind; `dispose` ends what it holds). */
async function withinLimit(run: Promise<RunResult>, ms: number): Promise<RunResult> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<RunResult>((resolve) => {
    timer = setTimeout(() => resolve({ violations: [`the run did not finish within ${ms} ms`], framesSent: 0, maxHeapBytes: 0 }), ms);
  });
  try {
    return await Promise.race([run, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** A scenario in one line, bursts and long strings abbreviated. */
export function describeScenario(scenario: Scenario | undefined): string {
  return JSON.stringify(scenario, (key, value: unknown) => (typeof value === 'string' && value.length > 60 ? `${value.slice(0, 60)}...(${value.length})` : value));
}
