/**
 * Micro-benchmark of what is signed on the request path: list cursors, sealed request states, session ids.
 * Run before and after a change to the signing code: `npx tsx bench/signing-micro.ts` (best of 5 rounds).
 */
import { decodeCursor, encodeCursor } from '../core/catalog/pagination.ts';
import { createStateSealer } from '../core/request-state.ts';
import { newSessionId } from '../core/ids.ts';

function bench(name: string, fn: () => unknown, iterations = 200_000): void {
  for (let i = 0; i < 20_000; i++) fn();
  const best: number[] = [];
  for (let round = 0; round < 5; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    best.push(Number(process.hrtime.bigint() - start) / iterations);
  }
  best.sort((a, b) => a - b);
  console.log(`${name.padEnd(34)} ${(1e9 / best[0]!).toFixed(0).padStart(9)} ops/s  (${best[0]!.toFixed(0)} ns/op, median ${best[2]!.toFixed(0)})`);
}

const cursor = encodeCursor({ list: 'tools', revision: 3, offset: 100 });
bench('cursor encode', () => encodeCursor({ list: 'tools', revision: 3, offset: 100 }));
bench('cursor decode', () => decodeCursor(cursor, 'tools'));
const sealer = createStateSealer({ keys: ['k'.repeat(32)] });
const binding = { principal: 'user-42', purpose: 'tools/call\u0000deploy' };
const payload = { step: 2, answers: { name: 'a'.repeat(200) } };
const token = sealer.seal(payload, binding);
bench('request-state seal (~300 B)', () => sealer.seal(payload, binding), 100_000);
bench('request-state open (~300 B)', () => sealer.open(token, binding), 100_000);
const big = { blob: 'x'.repeat(8000) };
const bigToken = sealer.seal(big, binding);
bench('request-state open (~11 KB)', () => sealer.open(bigToken, binding), 10_000);
bench('session id', () => newSessionId());
