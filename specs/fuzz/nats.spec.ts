/**
 * Reliability over NATS, both eras, against a real nats-server on a free port. See reliability.ts.
 */
import { natsUnderTest } from './nats-harness.ts';
import { reliabilitySpecs } from './reliability.ts';

reliabilitySpecs(natsUnderTest('legacy', { maxBurst: 1000 }), { numRuns: 12 });
reliabilitySpecs(natsUnderTest('modern', { maxBurst: 1000 }), { numRuns: 12 });
