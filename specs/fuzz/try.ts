import { memoryUnderTest } from './memory-harness.ts';
import { assertReliable } from './property.ts';
const u = memoryUnderTest({ maxBurst: Number(process.env.BURST ?? 250) });
const t0 = Date.now();
try { await assertReliable(u, { numRuns: Number(process.env.RUNS ?? 100), timeLimitMs: 200_000, onRun: (s, r) => process.stdout.write(r.violations.length ? 'x' : '.') }); console.log('ok', Date.now() - t0); } catch (e) { console.log(String(e)); }
await u.dispose();
