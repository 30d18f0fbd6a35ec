/**
 * Reliability over Streamable HTTP, legacy era (a session, raw POSTs on 127.0.0.1). See reliability.ts.
 */
import { httpUnderTest } from './http-harness.ts';
import { reliabilitySpecs } from './reliability.ts';

reliabilitySpecs(httpUnderTest('legacy', { maxBurst: 600, maxSteps: 10 }), { numRuns: 10, knownBurst: 1500 });
