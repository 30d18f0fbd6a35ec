/**
 * Reliability over the in-memory transport (raw bytes through the JSON codec). See reliability.ts.
 */
import { memoryUnderTest } from './memory-harness.ts';
import { reliabilitySpecs } from './reliability.ts';

reliabilitySpecs(memoryUnderTest(), { numRuns: 25 });
