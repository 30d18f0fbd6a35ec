/**
 * Reliability over Streamable HTTP, modern era (2026-07-28, every POST on its own). See reliability.ts.
 */
import { httpUnderTest } from './http-harness.ts';
import { reliabilitySpecs } from './reliability.ts';

reliabilitySpecs(httpUnderTest('modern', { maxBurst: 600, maxSteps: 10 }), { numRuns: 10, knownBurst: 1500 });
