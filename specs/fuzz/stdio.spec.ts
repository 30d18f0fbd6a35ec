/**
 * Reliability over stdio (a real server process per scenario, raw lines): every valid request id gets exactly
 * one answer or the process ends with the reason on stderr; no answer twice; exit 0 once stdin closes; the heap
 * stays bounded. Bounded here; `npm run fuzz` runs the same property for longer.
 */
import { after, test } from 'node:test';
import { assertReliable } from './property.ts';
import { stdioUnderTest } from './stdio-harness.ts';

const stdio = stdioUnderTest();
after(() => stdio.dispose());

test('stdio - wire traffic of both eras, bursts and stalled readers keep every answer promise', { timeout: 60_000 }, async () => {
  await assertReliable(stdio, { numRuns: 6, endOnFailure: true });
});
