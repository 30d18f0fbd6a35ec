/**
 * Micro benchmarks (benchmark.js): codecs, validation and routing measured alone, each against a floor or a
 * rival doing the same job. The suites run in one fresh child process (bench/micro-suites.ts); this module starts
 * it and writes the `## Micro benchmarks` section of bench/RESULTS.md. It loads nothing of the suites itself (only
 * their types), so the runner's process stays clean.
 *
 *   const run = await measureMicro({ maxTimeMs: 1000 });   // about 1 min on 2 cores
 *   const { sections, commands } = microMarkdown(run);
 */
import { join } from 'node:path';
import { type Loader, fmt, loaderArgs, repoRoot, runChild } from './lib.ts';
import { rel, table, tag } from './markdown.ts';

export const microSuites = ['codecs', 'validation', 'routing'] as const;
export type MicroSuite = (typeof microSuites)[number];

/** One benchmark's figures, as bench/micro-suites.ts reports them. */
export interface MicroFigure {
  readonly id: string;
  readonly suite: MicroSuite;
  readonly label: string;
  /** A short name for the comparison column of the rows compared with this one. */
  readonly short?: string;
  /** Operations per second (for deferred benchmarks: cycles/s × operations per cycle). */
  readonly hz: number;
  /** Relative margin of error, percent. */
  readonly rme: number;
  readonly samples: number;
  /** The id of the benchmark this one is compared with (the floor or the rival), if any. */
  readonly compareTo?: string;
  /** What one operation is, when it is more than one message (a 64-request chunk). */
  readonly unit?: string;
  /** Deferred benchmarks: sequential asynchronous operations per benchmark.js cycle. */
  readonly perCycle?: number;
  /** Set when the first run's margin of error was over 25 % and the benchmark ran once more (the better run is kept). */
  readonly reruns?: number;
}

/** What the child process prints on its result line. */
export interface MicroSuitesResult {
  readonly maxTimeMs: number;
  readonly suites: readonly MicroSuite[];
  readonly figures: readonly MicroFigure[];
  /** Sizes of the sample messages and chunks, in bytes. */
  readonly sizes: Readonly<Record<string, number>>;
  readonly elapsedMs: number;
}

export interface MicroOptions {
  /** benchmark.js `maxTime` per benchmark, in milliseconds (default 1000). */
  readonly maxTimeMs?: number;
  /** Which suites, as a list or comma-separated (default all: codecs, validation, routing). */
  readonly suites?: readonly MicroSuite[] | string;
  /** How the child loads the sources (default tsx, as the project runs). */
  readonly loader?: Loader;
}

export interface MicroRun {
  readonly loader: Loader;
  readonly command: string;
  readonly result: MicroSuitesResult;
}

/** Suite names from a list or a comma-separated string; all of them when empty. Throws on unknown names. */
export function parseMicroSuites(raw: readonly string[] | string | undefined): MicroSuite[] {
  const names = (typeof raw === 'string' ? raw.split(',') : (raw ?? [])).map((s) => s.trim()).filter((s) => s !== '');
  if (names.length === 0) return [...microSuites];
  const unknown = names.filter((n) => !(microSuites as readonly string[]).includes(n));
  if (unknown.length > 0) throw new RangeError(`micro suites are ${microSuites.join(', ')}; got ${unknown.join(', ')}`);
  return names as MicroSuite[];
}

/** Runs the micro suites in a fresh `node --import tsx bench/micro-suites.ts` process and returns its figures. */
export async function measureMicro(options: MicroOptions = {}): Promise<MicroRun> {
  const loader = options.loader ?? 'tsx';
  const maxTimeMs = options.maxTimeMs ?? 1000;
  const suites = parseMicroSuites(options.suites);
  console.log(`\n=== micro benchmarks (benchmark.js): ${suites.join(', ')}, sources loaded with ${loader} ===`);
  const run = await runChild(loaderArgs(loader), join(repoRoot, 'bench/micro-suites.ts'), [`--max-time-ms=${maxTimeMs}`, `--suites=${suites.join(',')}`]);
  return { loader, command: run.command, result: run.result as MicroSuitesResult };
}

const suiteTitles: Record<MicroSuite, string> = {
  codecs: 'Codecs and framing',
  validation: 'Validation',
  routing: 'Routing',
};

const suiteNotes: Record<MicroSuite, string> = {
  codecs:
    'A typical `tools/call` request (arguments and a progress token) and its result (a text block and structured content). ' +
    '`jsonCodec.encode` returns UTF-8 bytes (`JSON.stringify` + `Buffer.from`), `jsonCodec.decode` takes them (`toString` + `JSON.parse`); ' +
    'the msgpack codec also converts what it decodes into JSON data (maps to objects, checks every value). Chunk rows decode one ' +
    'buffer holding 64 framed requests, as one read from a pipe delivers them; the stdio `FrameReader` row pushes that buffer into a ' +
    'real `Readable` it listens on, so it includes the stream\'s `data` event and the inbound-frame objects.',
  validation:
    'Tool arguments `{ city, days, units, include }` (a string, an integer 1–14, an enum, an array of enums; no other members), the same shape ' +
    'in each library. rxmcp rows use the validator `buildTool` compiles at registration (server/registration.ts): ajv for JSON Schema, ' +
    'the library\'s own `~standard.validate` for zod. The SDK row calls the 1.x `McpServer`\'s own (private) `validateToolInput`, the function its ' +
    '`tools/call` handler awaits (zod 4 `safeParseAsync`); it is asynchronous, so it runs as deferred cycles of 100 sequential awaits. Invalid ' +
    'arguments carry three faults; every validator reports all of them, rxmcp builds its one-line summary, the SDK throws an `McpError`. ' +
    'The envelope rows check one decoded JSON-RPC message: rxmcp\'s hand-written `classify` (core/jsonrpc.ts, run by the inbound router on ' +
    'every frame) against the zod union `JSONRPCMessageSchema` that SDK 1.x transports parse every message with.',
  routing:
    '`routeFrame` (actors/inbound-router.ts) called directly on an operating server session (accepted with `preinitialized`) whose transport ' +
    'takes frames synchronously and drops them: envelope check, lifecycle and capability rules, handler lookup, the request actor, the response ' +
    'through the session\'s writer. `ping` is answered inside the router; the custom method runs a synchronous handler from the session\'s ' +
    'handler table (`createSessionAcceptor`); `tools/call` goes through `createServer`\'s tools feature (ajv validation, the tool, the result). ' +
    'SDK 1.x rows hand the same request to `transport.onmessage` of a connected `Server` / `McpServer` and wait for its `send` (the SDK answers ' +
    'asynchronously), 100 sequential round trips per cycle. Floor: `Map.get(method)`, call the handler, build the response, hand it on.',
};

function ratioCell(figure: MicroFigure, byId: ReadonlyMap<string, MicroFigure>): string {
  if (figure.compareTo === undefined) return '—';
  const other = byId.get(figure.compareTo);
  if (other === undefined) return '—';
  // Time per operation relative to the comparison: above 1 is slower, below 1 faster.
  return `${ratio(other.hz / figure.hz)}× ${other.short ?? other.label}`;
}

/** Two decimals from 1 up, two significant digits below (0.042), none from 100. */
function ratio(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (value >= 100) return fmt(value, 0);
  if (value >= 1) return fmt(value, 2);
  return value.toPrecision(2);
}

function labelCell(figure: MicroFigure): string {
  const notes = [
    ...(figure.unit === undefined ? [] : [`per op: ${figure.unit}`]),
    ...(figure.perCycle === undefined ? [] : [`deferred, ${figure.perCycle} per cycle`]),
    ...(figure.reruns === undefined ? [] : ['run twice']),
  ];
  return notes.length === 0 ? figure.label : `${figure.label} (${notes.join('; ')})`;
}

export function microMarkdown(run: MicroRun): { sections: string; commands: string[] } {
  const { result } = run;
  const byId = new Map(result.figures.map((f) => [f.id, f]));
  const parts = result.suites.map((suite) => {
    const rows = result.figures
      .filter((f) => f.suite === suite)
      .map((f) => [labelCell(f), `${fmt(f.hz, 0)} ± ${fmt(f.rme, 1)} %`, String(f.samples), ratioCell(f, byId)]);
    return `### ${suiteTitles[suite]}

${suiteNotes[suite]}

${table(['benchmark', 'ops/s ± rme', 'samples', 'time per op vs comparison'], rows)}`;
  });
  const sizes = Object.entries(result.sizes).map(([name, bytes]) => `${name} ${fmt(bytes, 0)}`).join(', ');
  const sections = `## Micro benchmarks

Command: \`${rel(run.command)}\` (${tag(run.loader)}; ${fmt(result.elapsedMs / 1000, 0)} s). benchmark.js \`Benchmark.Suite\`, \`maxTime\`
${fmt(result.maxTimeMs / 1000, 1)} s per benchmark, in one fresh process, suites one after another; each case's answer is checked once
before timing (a decoded value, an accepted or rejected argument set, a response with a result). "time per op vs comparison" is the
comparison's ops/s over this row's: how many times as long one operation takes (above 1: slower than the floor or rival named).
A benchmark whose margin of error passed 25 % ran once more, and the run with the smaller margin is shown ("run twice").
Wall clock on a shared machine: read margins of error before small differences.${sizes === '' ? '' : `\nSample sizes (bytes): ${sizes}.`}

${parts.join('\n\n')}
`;
  return { sections, commands: [rel(run.command)] };
}
