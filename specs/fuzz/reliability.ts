/**
 * The reliability specs of one medium, in a bounded size for `npm test`: the known cases first, then the random
 * property. Each test stays well under 30 s on a loaded 2-core machine.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { knownCases } from './known-cases.ts';
import { assertReliable } from './property.ts';
import type { TransportUnderTest } from './under-test.ts';

export function reliabilitySpecs(under: TransportUnderTest, options: { readonly numRuns: number; readonly knownBurst?: number }): void {
  after(() => under.dispose());
  for (const known of knownCases(options.knownBurst)) {
    if (!under.bounds.eras.includes(known.scenario.era)) continue;
    if (known.scenario.endInput === true && under.bounds.canEndInput !== true) continue;
    test(`${under.name} - known case: ${known.name}`, { timeout: 45_000 }, async () => {
      const result = await under.run(known.scenario);
      assert.deepEqual(result.violations, [], `${under.name}: ${known.name}`);
    });
  }
  test(`${under.name} - random wire traffic (${options.numRuns} runs): every valid request answered once, nothing else answered, bystander served, heap bounded`, { timeout: 60_000 }, async () => {
    await assertReliable(under, { numRuns: options.numRuns, endOnFailure: true });
  });
}

