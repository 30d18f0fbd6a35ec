/**
 * Reliability over Streamable HTTP, legacy era (a session, raw POSTs on 127.0.0.1). See reliability.ts.
 *
 * @serial: bursts of up to 1,500 raw POSTs on keep-alive sockets that the harness's agent reuses from run to run: once, side by side with other files on a loaded machine, 10 POSTs of a burst of 306 failed with ECONNRESET (cause not found; never alone)
 */
import { httpUnderTest } from './http-harness.ts';
import { reliabilitySpecs } from './reliability.ts';

reliabilitySpecs(httpUnderTest('legacy', { maxBurst: 600, maxSteps: 10 }), { numRuns: 10, knownBurst: 1500 });
