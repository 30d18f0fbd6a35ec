/**
 * Reliability over stdio: a real server process per scenario, raw lines on its stdin. See reliability.ts.
 */
import { reliabilitySpecs } from './reliability.ts';
import { stdioUnderTest } from './stdio-harness.ts';

reliabilitySpecs(stdioUnderTest({ maxBurst: 1500 }), { numRuns: 4 });
