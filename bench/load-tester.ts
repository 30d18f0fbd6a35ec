/**
 * rxmcp load measured, and used: a benchmark, not a test (it reports and never fails).
 *
 *   node --import tsx bench/load-tester.ts [--part=cost,sides] [--seconds=5] [--warmup=2]
 *        [--rate=20000] [--era=legacy|modern]                       (cost)
 *        [--side-rate=2000] [--side-concurrency=64] [--contenders=rxmcp,sdk,sdk2,tmcp]   (sides)
 *
 * cost: the tester's own price. One open-loop run at --rate calls/s (default 20,000) of the echo tool
 * (bench/echo-tool.ts) against rxmcp's stdio server (bench/transport-programs.ts, a fast server), the tester in
 * this process: its CPU (1 = one core; the claim is at most one core at 20,000 calls/s), its event-loop delay and
 * how late its sends left, whether it judged itself the bottleneck, the rate it sent and had answered, and the
 * server's CPU. sides: the same workload against each contender's stdio server (rxmcp, the official SDK 1.x and
 * 2.x, tmcp; the programs of bench/transport-programs.ts), one after the other: an open loop at --side-rate
 * calls/s (latency from when each call was due) and a closed loop of --side-concurrency calls in flight (the most
 * each answers), with the server's CPU per call and resident memory. Prints Markdown tables for RESULTS.md.
 */
import { runLoad, type LoadResult } from '../load/index.ts';
import { argInt, argValue, repoRoot } from './lib.ts';
import { programArgv } from './transport-lib.ts';

const parts = (argValue('part') ?? 'cost,sides').split(',');
const seconds = argInt('seconds', 5);
const warmup = argInt('warmup', 2);
const era = argValue('era') === 'modern' ? 'modern' : 'legacy';
const contenders = (argValue('contenders') ?? 'rxmcp,sdk,sdk2,tmcp').split(',');
const labels: Readonly<Record<string, string>> = { rxmcp: 'rxmcp', sdk: 'official SDK 1.x', sdk2: 'official SDK 2.x', tmcp: 'tmcp' };

const server = (impl: string) => ({ command: process.execPath, args: programArgv('tsx', ['--transport=stdio', `--impl=${impl}`]), cwd: repoRoot });
const echo = { method: 'tools/call', tool: 'echo', arguments: { text: '{{token}}', count: 3, upper: false }, expect: '{{token}} x3' } as const;
const ms = (value: number | undefined): string => (value === undefined ? '-' : value.toFixed(2));
const pct = (value: number | undefined): string => (value === undefined ? '-' : `${(value * 100).toFixed(0)}%`);

function serverUsPerCall(result: LoadResult): string {
  const cpu = result.server?.cpu;
  return cpu === undefined || result.rates.ok === 0 ? '-' : ((cpu * 1e6) / result.rates.ok).toFixed(1);
}

async function cost(): Promise<void> {
  const rate = argInt('rate', 20_000);
  const result = await runLoad({ target: server('rxmcp'), era, rate, durationMs: seconds * 1000, warmupMs: warmup * 1000, operations: [echo], hangMs: 10_000 });
  console.log(`\n### The tester's own cost: ${rate.toLocaleString('en-US')} calls/s against rxmcp's stdio server (${era} era)\n`);
  console.log('| planned calls/s | sent/s | ok/s | wrong | lost | tester CPU (1 core = 100%) | event-loop delay p99 (ms) | sends late p99 (ms) | tester-bound intervals | latency p50 / p99 (ms) | server CPU |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  console.log(
    `| ${rate} | ${result.rates.sent.toFixed(0)} | ${result.rates.ok.toFixed(0)} | ${result.wrong} | ${result.lost} | ${pct(result.tester.cpu)} | ${ms(result.tester.loopDelayP99Ms)} | ${ms(result.tester.slipP99Ms)} | ${result.tester.boundIntervals} of ${result.tester.intervals} | ${ms(result.latency.p50Ms)} / ${ms(result.latency.p99Ms)} | ${pct(result.server?.cpu)} |`,
  );
  console.log(`\n${result.tester.verdict}`);
}

async function sides(): Promise<void> {
  const rate = argInt('side-rate', 2000);
  const concurrency = argInt('side-concurrency', 64);
  const rows: string[] = [];
  for (const name of contenders) {
    const open = await runLoad({ target: server(name), era: 'legacy', rate, durationMs: seconds * 1000, warmupMs: warmup * 1000, operations: [echo], hangMs: 10_000 });
    const closed = await runLoad({ target: server(name), era: 'legacy', concurrency, durationMs: seconds * 1000, warmupMs: warmup * 1000, operations: [echo], hangMs: 10_000 });
    rows.push(
      `| ${labels[name] ?? name} | ${ms(open.latency.p50Ms)} / ${ms(open.latency.p99Ms)} / ${ms(open.latency.maxMs)} | ${serverUsPerCall(open)} | ${closed.rates.ok.toFixed(0)} | ${ms(closed.latency.p50Ms)} / ${ms(closed.latency.p99Ms)} | ${serverUsPerCall(closed)} | ${((closed.server?.rssPeak ?? 0) / 1024 / 1024).toFixed(1)} | ${open.wrong + closed.wrong} / ${open.lost + closed.lost} | ${open.tester.bottleneck || closed.tester.bottleneck ? 'yes' : 'no'} |`,
    );
  }
  console.log(`\n### Side by side under rxmcp load: stdio servers, the echo tool, legacy era (${seconds} s each after ${warmup} s of warm-up)\n`);
  console.log(`| server | open loop ${rate}/s: p50 / p99 / max (ms, from when due) | server CPU µs/call | closed loop ${concurrency} in flight: ok/s | p50 / p99 (ms) | server CPU µs/call | server RSS (MB) | wrong / lost | tester-bound |`);
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}

if (parts.includes('cost')) await cost();
if (parts.includes('sides')) await sides();
