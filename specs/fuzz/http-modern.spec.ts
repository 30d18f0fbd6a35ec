/**
 * Reliability over Streamable HTTP, modern era (2026-07-28, every POST on its own). See reliability.ts.
 *
 * @serial: bursts of up to 1,500 raw POSTs on keep-alive sockets that the harness's agent reuses from run to run: once, side by side with other files on a loaded machine, 10 POSTs of a burst of 306 failed with ECONNRESET (cause not found; never alone)
 */
import { httpUnderTest } from './http-harness.ts';
import { reliabilitySpecs } from './reliability.ts';

reliabilitySpecs(httpUnderTest('modern', { maxBurst: 600, maxSteps: 10 }), { numRuns: 10, knownBurst: 1500 });
