/**
 * The command line of `rxmcp load`: its usage text and the flags turned into runLoad's options, the files to
 * write and the budgets to keep. A bad value is echoed with what would be right.
 */
import { readFileSync } from 'node:fs';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { Bound, Budgets } from '../../load/budgets.ts';
import { type EraChoice, type Fault, type LoadOptions, type Operation } from '../../load/options.ts';
import { type Workload, parseFaultFlag, parseStepsFlag, parseWorkload } from '../../load/workload.ts';
import { parseBytes, parseDuration, parseFraction } from '../../load/units.ts';
import { UsageError, choiceValue, parseCommand, positiveIntegerValue } from '../args.ts';
import { keyValues } from '../client/arguments.ts';
import { type Target, parseTarget, targetHelp } from '../client/target.ts';
import { natsConnectionOf, natsCredentialFlags } from '../nats-args.ts';

const COMMAND = 'rxmcp load';

export const loadUsage = `usage: rxmcp load <target> [options]
       rxmcp load [options] -- <command> [args...]

Loads any MCP server and checks every answer against its request: each call ends as ok, error (by code),
wrong (another call's answer, the wrong text) or hung (no answer within --hang-after), and sent = ok + errors
+ wrong + hung. Shows the rate, latency, errors and the server's CPU and memory as it runs (a line rewritten
on a terminal, one line a second when piped), then a summary; --json and --report write the result.

${targetHelp}

workload:
  --duration D             the measured time (default 10s), as 30s, 500ms, 2m
  --rate N                 open loop: N calls/s on schedule whatever the answers; latency counts from when
                           each call was due, so a stalled server shows (default 100 calls/s)
  --concurrency N          closed loop instead: N calls in flight, the next sent when one is answered
  --steps R:D,...          stepped open-loop rates, e.g. --steps 100:10s,200:10s,400:10s
  --concurrency-steps N:D,...
                           stepped closed-loop concurrencies, e.g. --concurrency-steps 1:5s,8:5s,64:5s
  --ramp D                 from nothing to the first level over D, from the start
  --warmup D               run D before the measured part, at the first level; counted apart (default 0)
  --sessions N             sessions to spread the calls over (default 1; a stdio target: one process each)
  --session-rate N         open the sessions at N per second during the run (default: all before it)
  --churn-calls N          replace a session after N calls (default: sessions are kept)
  --churn-after D          replace a session after D
  --call 'TOOL k=v ...'    a tools/call (repeatable); values are typed by the tool's input schema
  --op 'METHOD ...'        any operation (repeatable): 'tools/call TOOL k=v ...', 'tools/list',
                           'resources/read URI', 'prompts/get NAME k=v ...', 'ping' (legacy era only).
                           A weight goes first: '8*tools/call echo message={{token}}' is drawn 8 times as
                           often as a weight of 1. Words are split at spaces (a workload file for more).
  --expect TEXT            the text every tools/call answer must be exactly (placeholders filled), instead
                           of holding the call's {{token}}
                           placeholders, filled per call: {{token}} (unique to the call; the answer must
                           hold it), {{seq}}, {{session}}, {{random:N}}, {{pad:N}} (N bytes: a payload size).
                           Without --call or --op: the server's echo tool, the token in its first string.
  --workload FILE          a JSON or YAML workload (docs/load.md); flags given as well win over it
  --era E                  legacy, modern, both (side by side, each with the whole workload), or auto
                           (default: ask the server, fall back to legacy)
  --hang-after D           a call with no answer within D is hung (default 10s)
  --max-in-flight N        open loop: at most N calls in flight; sending past it waits (default 10000)

chaos (times from the start, warm-up included; each fault's before, during and after are counted apart):
  --fault kill@T[+R]       SIGKILL the server at T; a stdio server is started again R later (default 0)
  --fault pause@T:F        SIGSTOP the server at T, SIGCONT it F later
  --fault drop@T           drop every connection at T; the sessions connect again
  --pid N                  the server's process: its CPU and memory are shown, and kill and pause signal it
                           (a stdio server's own process is known without it)
  --server-stderr          show a stdio server's stderr (default: dropped, to keep the status readable)

output:
  --json FILE              the result as JSON (sent, ok, errors, wrong, hung, percentiles, rates, windows,
                           faults, the time series); - for stdout (the summary then goes to stderr)
  --report FILE.html       one self-contained HTML report (charts drawn inline; opens with no network)
  --interval D             a status line and a point of the time series every D (default 1s)
  -q, --quiet              no live status, only the summary

CI (exit 1 with the line that broke it):
  --compare FILE           a previous --json result: shown side by side; the base of relative budgets
  --max-p99 D|+P%          p99 latency at most D (e.g. 50ms), or at most P% above the previous run's
  --max-error-rate P%      (errors + hung) / sent at most P% (e.g. 0.1%)
  --max-rss-per-session S|+P%
                           the server's memory per session at most S (e.g. 2MB), or P% above the previous
                           (needs --pid, or a stdio target)
  A wrong answer, or an answer that matches no request, always fails the run.

connection:
  -H, --header 'N: V'      an HTTP header for every request (repeatable)
  --prefix P               the NATS subject prefix (default mcp)
  --timeout D              how long opening a session may take (default 30s)
  --nats-user U, --nats-password P, --nats-token T, --nats-nkey FILE, --nats-creds FILE, --nats-ca FILE,
  --nats-cert FILE --nats-key FILE
                           NATS credentials for nats:// targets (or $NATS_USER, $NATS_PASSWORD, ...)
  -h, --help               show this help

examples:
  rxmcp load http://127.0.0.1:3000/mcp --call 'greet name={{token}}' --rate 200 --duration 30s
  rxmcp load --rate 500 --sessions 4 --report load.html -- npx -y @modelcontextprotocol/server-everything
  rxmcp load --concurrency 32 --fault kill@5s+1s --json run.json -- node server.js
  rxmcp load http://127.0.0.1:3000/mcp --op 'resources/read demo://echo/{{token}}' --era both
  rxmcp load $URL --workload soak.yaml --compare main.json --max-p99 +10% --max-error-rate 0.1%

exit codes: 0 every budget kept and every answer right; 1 a budget broken, a wrong answer, or the run could
not be made (the target unreachable); 2 a mistake on the command line; 130 interrupted (Ctrl-C: the result
so far is still written)`;

export const loadCommand = {
  command: COMMAND,
  usage: loadUsage,
  positionals: true,
  commandLine: true,
  options: {
    duration: { type: 'string' },
    rate: { type: 'string' },
    concurrency: { type: 'string' },
    steps: { type: 'string' },
    'concurrency-steps': { type: 'string' },
    ramp: { type: 'string' },
    warmup: { type: 'string' },
    sessions: { type: 'string' },
    'session-rate': { type: 'string' },
    'churn-calls': { type: 'string' },
    'churn-after': { type: 'string' },
    call: { type: 'string', multiple: true },
    op: { type: 'string', multiple: true },
    expect: { type: 'string' },
    workload: { type: 'string' },
    era: { type: 'string' },
    'hang-after': { type: 'string' },
    'max-in-flight': { type: 'string' },
    fault: { type: 'string', multiple: true },
    pid: { type: 'string' },
    'server-stderr': { type: 'boolean' },
    json: { type: 'string' },
    report: { type: 'string' },
    interval: { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
    compare: { type: 'string' },
    'max-p99': { type: 'string' },
    'max-error-rate': { type: 'string' },
    'max-rss-per-session': { type: 'string' },
    header: { type: 'string', multiple: true, short: 'H' },
    prefix: { type: 'string' },
    timeout: { type: 'string' },
    ...natsCredentialFlags,
  },
} as const;

export interface LoadCommand {
  readonly target: Target;
  /** runLoad's options, but the target (the command opens a NATS connection first) and the callbacks. */
  readonly workload: Workload;
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly prefix: string | undefined;
  readonly serverStderr: boolean;
  readonly json: string | undefined;
  readonly report: string | undefined;
  readonly quiet: boolean;
  readonly compare: string | undefined;
  readonly budgets: Budgets;
}

/** A flag's value through one of load/units.ts's parsers, a usage error echoing it otherwise. */
function read<T>(flag: string, raw: string, parse: (raw: string, what: string) => T): T {
  try {
    return parse(raw, flag);
  } catch (error) {
    throw new UsageError(COMMAND, error instanceof Error ? error.message : String(error));
  }
}

const positiveNumber = (flag: string, raw: string): number => {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value <= 0) throw new UsageError(COMMAND, `${flag} must be a positive number, got ${JSON.stringify(raw)}`);
  return value;
};

function bound(flag: string, raw: string, parse: (raw: string, what: string) => number): Bound {
  const relative = /^\+(\d+(?:\.\d+)?)%$/.exec(raw.trim());
  if (relative !== null) return { relative: Number(relative[1]) / 100 };
  try {
    return parse(raw, flag);
  } catch (error) {
    throw new UsageError(COMMAND, `${error instanceof Error ? error.message : String(error)}; or +P% for at most P% above the --compare run's`);
  }
}

/** `--call '3*echo k=v'` as the `--op` it stands for: `3*tools/call echo k=v`. */
function asToolCall(text: string): string {
  const match = /^(\s*\d+(?:\.\d+)?\s*\*)?\s*(.*)$/s.exec(text);
  return `${match?.[1] ?? ''}tools/call ${match?.[2] ?? text}`;
}

/** An operation from `--op` (or `--call`, which is `--op 'tools/call ...'`). */
export function operationOf(text: string, expect: string | undefined): Operation {
  const weighted = /^\s*(\d+(?:\.\d+)?)\s*\*\s*(.*)$/s.exec(text);
  const weight = weighted === null ? undefined : Number(weighted[1]);
  if (weight !== undefined && !(weight > 0)) throw new UsageError(COMMAND, `an operation's weight must be above 0, got ${JSON.stringify(text)}`);
  const words = (weighted?.[2] ?? text).trim().split(/\s+/).filter((word) => word !== '');
  const [method, name, ...rest] = words;
  const weightPart = weight === undefined ? {} : { weight };
  const args = (from: readonly string[]): Record<string, string> => Object.fromEntries(keyValues(COMMAND, from));
  switch (method) {
    case 'tools/call':
      if (name === undefined) throw new UsageError(COMMAND, `tools/call needs the tool's name: 'tools/call TOOL key=value ...', got ${JSON.stringify(text)}`);
      return { method, tool: name, arguments: args(rest) as JsonObject, ...(expect === undefined ? {} : { expect }), ...weightPart };
    case 'tools/list':
    case 'ping':
      if (name !== undefined) throw new UsageError(COMMAND, `${method} takes nothing more, got ${JSON.stringify(text)}`);
      return { method, ...weightPart };
    case 'resources/read':
      if (name === undefined || rest.length > 0) throw new UsageError(COMMAND, `resources/read takes one URI: 'resources/read demo://echo/{{token}}', got ${JSON.stringify(text)}`);
      return { method, uri: name, ...weightPart };
    case 'prompts/get':
      if (name === undefined) throw new UsageError(COMMAND, `prompts/get needs the prompt's name: 'prompts/get NAME key=value ...', got ${JSON.stringify(text)}`);
      return { method, prompt: name, arguments: args(rest), ...weightPart };
    default:
      throw new UsageError(COMMAND, `an operation starts with tools/call, tools/list, resources/read, prompts/get or ping, got ${JSON.stringify(text)}`);
  }
}

/** The command's parts, or undefined when the user asked for help. */
export function parseLoadArgs(argv: readonly string[]): LoadCommand | undefined {
  const parsed = parseCommand(loadCommand, argv);
  if (parsed.help) return undefined;
  const { values } = parsed;
  const { target: bare, rest } = parseTarget(COMMAND, parsed.positionals, parsed.commandLine, values.prefix);
  if (rest.length > 0) throw new UsageError(COMMAND, `unexpected argument ${JSON.stringify(rest[0])} (operations go in --call or --op)`);
  const natsFlag = Object.keys(values).find((flag) => flag.startsWith('nats-'));
  if (natsFlag !== undefined && bare.kind !== 'nats') throw new UsageError(COMMAND, `--${natsFlag} is for nats:// targets`);
  if (values.prefix !== undefined && bare.kind !== 'nats') throw new UsageError(COMMAND, '--prefix is for nats:// targets');
  const target: Target = bare.kind === 'nats' ? { ...bare, credentials: natsConnectionOf(COMMAND, { ...values, nats: bare.servers }).credentials } : bare;
  let headers: Record<string, string> | undefined;
  for (const header of values.header ?? []) {
    if (target.kind !== 'http') throw new UsageError(COMMAND, '--header is for http(s):// targets');
    const colon = header.indexOf(':');
    if (colon <= 0) throw new UsageError(COMMAND, `--header takes 'Name: value', got ${JSON.stringify(header)}`);
    (headers ??= {})[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  let fromFile: Workload = {};
  if (values.workload !== undefined) {
    let text: string;
    try {
      text = readFileSync(values.workload, 'utf8');
    } catch (error) {
      throw new UsageError(COMMAND, `cannot read --workload ${JSON.stringify(values.workload)}: ${(error as { code?: string }).code ?? String(error)}`);
    }
    fromFile = read('--workload', text, (raw) => parseWorkload(raw, values.workload));
  }
  const ms = (flag: string, raw: string): number => read(flag, raw, parseDuration);
  const operations = [
    ...(values.call ?? []).map((text) => operationOf(asToolCall(text), values.expect)),
    ...(values.op ?? []).map((text) => operationOf(text, values.expect)),
  ];
  if (values.expect !== undefined && operations.length === 0) throw new UsageError(COMMAND, '--expect goes with a --call or a tools/call --op');
  const faults: Fault[] | undefined = values.fault?.map((text) => read('--fault', text, parseFaultFlag));
  const flagged: { -readonly [K in keyof Workload]: Workload[K] } = {};
  if (values.duration !== undefined) flagged.durationMs = ms('--duration', values.duration);
  if (values.warmup !== undefined) flagged.warmupMs = ms('--warmup', values.warmup);
  if (values.ramp !== undefined) flagged.rampMs = ms('--ramp', values.ramp);
  if (values['hang-after'] !== undefined) flagged.hangMs = ms('--hang-after', values['hang-after']);
  if (values.interval !== undefined) flagged.intervalMs = ms('--interval', values.interval);
  if (values.timeout !== undefined) flagged.connectTimeoutMs = ms('--timeout', values.timeout);
  if (values.rate !== undefined) flagged.rate = positiveNumber('--rate', values.rate);
  if (values.concurrency !== undefined) flagged.concurrency = positiveIntegerValue(COMMAND, '--concurrency', values.concurrency);
  if (values.steps !== undefined && values['concurrency-steps'] !== undefined) throw new UsageError(COMMAND, 'give --steps (rates) or --concurrency-steps, not both');
  if (values.steps !== undefined) flagged.steps = read('--steps', values.steps, (raw) => parseStepsFlag(raw, 'rate'));
  if (values['concurrency-steps'] !== undefined) flagged.steps = read('--concurrency-steps', values['concurrency-steps'], (raw) => parseStepsFlag(raw, 'concurrency'));
  if (values.sessions !== undefined) flagged.sessions = positiveIntegerValue(COMMAND, '--sessions', values.sessions);
  if (values['session-rate'] !== undefined) flagged.sessionRate = positiveNumber('--session-rate', values['session-rate']);
  if (values['max-in-flight'] !== undefined) flagged.maxInFlight = positiveIntegerValue(COMMAND, '--max-in-flight', values['max-in-flight']);
  if (values.pid !== undefined) flagged.pid = positiveIntegerValue(COMMAND, '--pid', values.pid);
  if (values.era !== undefined) flagged.era = choiceValue(COMMAND, '--era', values.era, ['legacy', 'modern', 'both', 'auto'] as const) satisfies EraChoice;
  if (values['churn-calls'] !== undefined || values['churn-after'] !== undefined) {
    flagged.churn = {
      ...(values['churn-calls'] === undefined ? {} : { calls: positiveIntegerValue(COMMAND, '--churn-calls', values['churn-calls']) }),
      ...(values['churn-after'] === undefined ? {} : { afterMs: ms('--churn-after', values['churn-after']) }),
    };
  }
  if (operations.length > 0) flagged.operations = operations;
  if (faults !== undefined) flagged.faults = faults;
  // A level given on the command line replaces the file's level of either loop.
  const levelFlagged = flagged.rate !== undefined || flagged.concurrency !== undefined || flagged.steps !== undefined;
  const { rate: _rate, concurrency: _concurrency, steps: _steps, ...fileWithoutLevel } = fromFile;
  const workload: Workload = { ...(levelFlagged ? fileWithoutLevel : fromFile), ...flagged };
  if (workload.steps !== undefined && flagged.durationMs !== undefined) throw new UsageError(COMMAND, 'steps give their own durations: leave --duration out');
  const budgets: { -readonly [K in keyof Budgets]: Budgets[K] } = {};
  if (values['max-p99'] !== undefined) budgets.maxP99Ms = bound('--max-p99', values['max-p99'], parseDuration);
  if (values['max-error-rate'] !== undefined) budgets.maxErrorRate = read('--max-error-rate', values['max-error-rate'], parseFraction);
  if (values['max-rss-per-session'] !== undefined) budgets.maxRssPerSession = bound('--max-rss-per-session', values['max-rss-per-session'], parseBytes);
  const relative = Object.entries(budgets).find(([, value]) => typeof value === 'object');
  if (relative !== undefined && values.compare === undefined) throw new UsageError(COMMAND, `a relative budget (+P%) needs --compare previous.json to be relative to`);
  if (values['server-stderr'] === true && target.kind !== 'stdio') throw new UsageError(COMMAND, '--server-stderr is for a stdio target (-- <command>)');
  return {
    target,
    workload,
    headers,
    prefix: values.prefix,
    serverStderr: values['server-stderr'] === true,
    json: values.json,
    report: values.report,
    quiet: values.quiet === true,
    compare: values.compare,
    budgets,
  };
}

/** The workload's options as runLoad takes them (checked there), or a usage error in the command's words. */
export function checkedOptions(options: LoadOptions, check: (options: LoadOptions) => unknown): LoadOptions {
  try {
    check(options);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(COMMAND, error.message);
    throw error;
  }
  return options;
}
