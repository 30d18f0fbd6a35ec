/**
 * The transports benchmark: `tools/call` over stdio (bench/stdio-calls.ts) and over Streamable HTTP
 * (bench/http-calls.ts), and memory per idle HTTP session (bench/http-idle-sessions.ts), rxmcp against the official
 * SDK 1.x with raw floors, each in fresh child processes. Run by bench/run.ts; its RESULTS.md sections are in
 * bench/transports-markdown.ts.
 */
import { join } from 'node:path';
import { type HttpCallsResult } from './http-calls.ts';
import { type IdleResult, runIdleSessionsBench } from './http-idle-sessions.ts';
import { type Loader, loaderArgs, repoRoot, runChild } from './lib.ts';
import { type StdioCallsResult } from './stdio-calls.ts';

export interface TransportsOptions {
  readonly stdio: { readonly rounds: number; readonly count: number; readonly warmup: number };
  readonly http: { readonly rounds: number; readonly count: number; readonly warmup: number; readonly sessions: number; readonly sessionCount: number };
  readonly window: number;
  /** Sessions of the idle-memory figure. */
  readonly idleSessions: number;
  readonly loaders: readonly Loader[];
}

export interface TransportsRun {
  readonly options: TransportsOptions;
  readonly stdio: readonly { readonly result: StdioCallsResult; readonly command: string }[];
  readonly http: readonly { readonly result: HttpCallsResult; readonly command: string }[];
  readonly idle: readonly IdleResult[];
}

const describe = (loader: Loader): string => (loader === 'tsx' ? 'tsx (as the project runs)' : 'types stripped only (no keepNames)');

export async function measureTransports(options: TransportsOptions): Promise<TransportsRun> {
  const stdio: TransportsRun['stdio'][number][] = [];
  const http: TransportsRun['http'][number][] = [];
  const idle: IdleResult[] = [];
  const { window } = options;
  for (const loader of options.loaders) {
    const tail = loader === 'tsx' ? [] : [`--loader=${loader}`];
    console.log(`\n=== transports: tools/call over stdio, sources loaded with ${describe(loader)} ===`);
    const s = options.stdio;
    const stdioRun = await runChild(loaderArgs(loader), join(repoRoot, 'bench/stdio-calls.ts'),
      [`--rounds=${s.rounds}`, `--count=${s.count}`, `--warmup=${s.warmup}`, `--window=${window}`, ...tail]);
    stdio.push({ result: stdioRun.result as StdioCallsResult, command: stdioRun.command });

    console.log(`\n=== transports: tools/call over Streamable HTTP, sources loaded with ${describe(loader)} ===`);
    const h = options.http;
    const httpRun = await runChild(loaderArgs(loader), join(repoRoot, 'bench/http-calls.ts'),
      [`--rounds=${h.rounds}`, `--count=${h.count}`, `--warmup=${h.warmup}`, `--window=${window}`, `--sessions=${h.sessions}`, `--session-count=${h.sessionCount}`, ...tail]);
    http.push({ result: httpRun.result as HttpCallsResult, command: httpRun.command });

    console.log(`\n=== transports: memory per idle HTTP session, sources loaded with ${describe(loader)} ===`);
    idle.push(await runIdleSessionsBench(options.idleSessions, 200, loader));
  }
  return { options, stdio, http, idle };
}
