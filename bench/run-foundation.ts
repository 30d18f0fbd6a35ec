/**
 * Kept for old command lines: the foundation benchmark alone (ping round trips, heap per idle session).
 * Superseded by bench/run.ts (`npm run bench`), which runs the foundation and the features benchmarks and
 * writes all of bench/RESULTS.md; this writes RESULTS.md with the foundation sections only.
 *
 *   npx tsx bench/run-foundation.ts [--rounds=7] [--count=20000] [--warmup=5000] [--n=10000] [--no-suite] [--no-strip]
 */
process.argv.push('--no-features');
await import('./run.ts');
