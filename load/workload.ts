/**
 * A workload written down: a small JSON or YAML file (the same words as the flags), and the short forms the
 * command line uses for faults and steps. Durations are written `30s`, `500ms`, `2m`. Unknown keys are refused
 * with the known ones named, so a typo never silently drops part of a workload.
 *
 *   duration: 30s            warmup: 5s        ramp: 5s
 *   rate: 200                # or concurrency: 16, or steps: [{ rate: 100, duration: 10s }, ...]
 *   sessions: 4              sessionRate: 2    churn: { calls: 1000 }   # or { after: 10s }
 *   era: legacy              hangAfter: 5s     maxInFlight: 5000
 *   operations:
 *     - { call: echo, arguments: { message: "{{token}}" }, expect: "Echo: {{token}}", weight: 8 }
 *     - { list: tools }      - { read: "demo://echo/{{token}}" }
 *     - { prompt: summarize, arguments: { text: "{{token}}" } }      - { ping: true }
 *   faults:
 *     - { kill: 10s, restartAfter: 1s }   - { pause: 20s, for: 2s }   - { drop: 25s }
 */
import { parse as parseYaml } from 'yaml';
import type { JsonObject } from '../core/jsonrpc.ts';
import { type EraChoice, type Fault, type LoadOptions, type LoadStep, LoadOptionsError, type Operation } from './options.ts';
import { parseDuration } from './units.ts';

/** What a workload file can set: everything but the target and the callbacks. */
export type Workload = Omit<LoadOptions, 'target' | 'onStatus' | 'onEvent' | 'signal'>;

type Raw = Record<string, unknown>;

const TOP_KEYS = ['duration', 'warmup', 'ramp', 'rate', 'concurrency', 'steps', 'sessions', 'sessionRate', 'churn', 'era', 'hangAfter', 'maxInFlight', 'operations', 'faults', 'pid', 'interval'] as const;

function fail(where: string, message: string): never {
  throw new LoadOptionsError(`${where}: ${message}`);
}

function objectAt(value: unknown, where: string): Raw {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(where, `must be a mapping of keys to values, got ${JSON.stringify(value)}`);
  return value as Raw;
}

function onlyKeys(raw: Raw, known: readonly string[], where: string): void {
  for (const key of Object.keys(raw)) if (!known.includes(key)) fail(where, `unknown key ${JSON.stringify(key)} (known: ${known.join(', ')})`);
}

function durationAt(value: unknown, where: string): number {
  if (typeof value !== 'string' && typeof value !== 'number') fail(where, `must be a duration such as 30s or 500ms, got ${JSON.stringify(value)}`);
  try {
    return parseDuration(value, where);
  } catch (error) {
    throw new LoadOptionsError(error instanceof Error ? error.message : String(error));
  }
}

function numberAt(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) fail(where, `must be a positive number, got ${JSON.stringify(value)}`);
  return value;
}

/** Reads a workload file's text; `name` (the file's) picks YAML or JSON by its extension, YAML otherwise. */
export function parseWorkload(text: string, name = 'workload.yaml'): Workload {
  let parsed: unknown;
  try {
    parsed = /\.json$/i.test(name) ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new LoadOptionsError(`${name} could not be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  const raw = objectAt(parsed, name);
  onlyKeys(raw, TOP_KEYS, name);
  const out: { -readonly [K in keyof Workload]: Workload[K] } = {};
  if (raw['duration'] !== undefined) out.durationMs = durationAt(raw['duration'], 'duration');
  if (raw['warmup'] !== undefined) out.warmupMs = durationAt(raw['warmup'], 'warmup');
  if (raw['ramp'] !== undefined) out.rampMs = durationAt(raw['ramp'], 'ramp');
  if (raw['hangAfter'] !== undefined) out.hangMs = durationAt(raw['hangAfter'], 'hangAfter');
  if (raw['interval'] !== undefined) out.intervalMs = durationAt(raw['interval'], 'interval');
  if (raw['rate'] !== undefined) out.rate = numberAt(raw['rate'], 'rate');
  if (raw['concurrency'] !== undefined) out.concurrency = numberAt(raw['concurrency'], 'concurrency');
  if (raw['sessions'] !== undefined) out.sessions = numberAt(raw['sessions'], 'sessions');
  if (raw['sessionRate'] !== undefined) out.sessionRate = numberAt(raw['sessionRate'], 'sessionRate');
  if (raw['maxInFlight'] !== undefined) out.maxInFlight = numberAt(raw['maxInFlight'], 'maxInFlight');
  if (raw['pid'] !== undefined) out.pid = numberAt(raw['pid'], 'pid');
  if (raw['era'] !== undefined) out.era = raw['era'] as EraChoice;
  if (raw['churn'] !== undefined) {
    const churn = objectAt(raw['churn'], 'churn');
    onlyKeys(churn, ['calls', 'after'], 'churn');
    out.churn = {
      ...(churn['calls'] === undefined ? {} : { calls: numberAt(churn['calls'], 'churn.calls') }),
      ...(churn['after'] === undefined ? {} : { afterMs: durationAt(churn['after'], 'churn.after') }),
    };
  }
  if (raw['steps'] !== undefined) {
    if (!Array.isArray(raw['steps'])) fail('steps', 'must be a list of { rate, duration } or { concurrency, duration }');
    out.steps = (raw['steps'] as unknown[]).map((value, index): LoadStep => {
      const step = objectAt(value, `steps[${index}]`);
      onlyKeys(step, ['rate', 'concurrency', 'duration'], `steps[${index}]`);
      return {
        ...(step['rate'] === undefined ? {} : { rate: numberAt(step['rate'], `steps[${index}].rate`) }),
        ...(step['concurrency'] === undefined ? {} : { concurrency: numberAt(step['concurrency'], `steps[${index}].concurrency`) }),
        durationMs: durationAt(step['duration'], `steps[${index}].duration`),
      };
    });
  }
  if (raw['operations'] !== undefined) {
    if (!Array.isArray(raw['operations'])) fail('operations', 'must be a list');
    out.operations = (raw['operations'] as unknown[]).map((value, index) => operationOf(objectAt(value, `operations[${index}]`), `operations[${index}]`));
  }
  if (raw['faults'] !== undefined) {
    if (!Array.isArray(raw['faults'])) fail('faults', 'must be a list');
    out.faults = (raw['faults'] as unknown[]).map((value, index) => faultOf(objectAt(value, `faults[${index}]`), `faults[${index}]`));
  }
  return out;
}

function weightOf(raw: Raw, where: string): { weight?: number } {
  return raw['weight'] === undefined ? {} : { weight: numberAt(raw['weight'], `${where}.weight`) };
}

function argumentsOf(raw: Raw, where: string): JsonObject | undefined {
  return raw['arguments'] === undefined ? undefined : objectAt(raw['arguments'], `${where}.arguments`);
}

function operationOf(raw: Raw, where: string): Operation {
  const expect = raw['expect'] === undefined ? {} : { expect: String(raw['expect']) };
  if (raw['call'] !== undefined || raw['method'] === 'tools/call') {
    onlyKeys(raw, ['call', 'method', 'tool', 'arguments', 'expect', 'weight'], where);
    const args = argumentsOf(raw, where);
    return { method: 'tools/call', tool: String(raw['call'] ?? raw['tool']), ...(args === undefined ? {} : { arguments: args }), ...expect, ...weightOf(raw, where) };
  }
  if (raw['list'] !== undefined || raw['method'] === 'tools/list') {
    onlyKeys(raw, ['list', 'method', 'weight'], where);
    if (raw['list'] !== undefined && raw['list'] !== 'tools') fail(where, `list takes tools (the list that changes with a server's work), got ${JSON.stringify(raw['list'])}`);
    return { method: 'tools/list', ...weightOf(raw, where) };
  }
  if (raw['read'] !== undefined || raw['method'] === 'resources/read') {
    onlyKeys(raw, ['read', 'method', 'uri', 'expect', 'weight'], where);
    return { method: 'resources/read', uri: String(raw['read'] ?? raw['uri']), ...expect, ...weightOf(raw, where) };
  }
  if (raw['prompt'] !== undefined || raw['method'] === 'prompts/get') {
    onlyKeys(raw, ['prompt', 'method', 'name', 'arguments', 'expect', 'weight'], where);
    const args = argumentsOf(raw, where) as Record<string, string> | undefined;
    return { method: 'prompts/get', prompt: String(raw['prompt'] ?? raw['name']), ...(args === undefined ? {} : { arguments: args }), ...expect, ...weightOf(raw, where) };
  }
  if (raw['ping'] !== undefined || raw['method'] === 'ping') {
    onlyKeys(raw, ['ping', 'method', 'weight'], where);
    return { method: 'ping', ...weightOf(raw, where) };
  }
  fail(where, `say what it sends: call: <tool>, list: tools, read: <uri>, prompt: <name> or ping: true (got keys ${Object.keys(raw).join(', ') || 'none'})`);
}

function faultOf(raw: Raw, where: string): Fault {
  if (raw['kill'] !== undefined) {
    onlyKeys(raw, ['kill', 'restartAfter'], where);
    return { kind: 'kill', atMs: durationAt(raw['kill'], `${where}.kill`), ...(raw['restartAfter'] === undefined ? {} : { restartAfterMs: durationAt(raw['restartAfter'], `${where}.restartAfter`) }) };
  }
  if (raw['pause'] !== undefined) {
    onlyKeys(raw, ['pause', 'for'], where);
    return { kind: 'pause', atMs: durationAt(raw['pause'], `${where}.pause`), forMs: durationAt(raw['for'] ?? '1s', `${where}.for`) };
  }
  if (raw['drop'] !== undefined) {
    onlyKeys(raw, ['drop'], where);
    return { kind: 'drop', atMs: durationAt(raw['drop'], `${where}.drop`) };
  }
  fail(where, 'a fault is { kill: <when>, restartAfter: <how long> }, { pause: <when>, for: <how long> } or { drop: <when> }');
}

/** `kill@10s`, `kill@10s+2s` (started again 2 s later), `pause@5s:2s` (for 2 s), `drop@8s`. */
export function parseFaultFlag(text: string): Fault {
  const match = /^(kill|pause|drop)@([^+:]+)(?:([+:])(.+))?$/.exec(text.trim());
  if (match === null) throw new LoadOptionsError(`a fault is kill@WHEN[+RESTART_AFTER], pause@WHEN:FOR or drop@WHEN (e.g. kill@10s+1s, pause@5s:2s, drop@8s), got ${JSON.stringify(text)}`);
  const [, kind, when = '', separator, extra] = match;
  const atMs = durationAt(when, `the ${kind ?? ''} fault's time`);
  if (kind === 'kill') {
    if (separator === ':') throw new LoadOptionsError(`a kill fault takes +RESTART_AFTER (kill@10s+1s), got ${JSON.stringify(text)}`);
    return { kind: 'kill', atMs, ...(extra === undefined ? {} : { restartAfterMs: durationAt(extra, 'the kill fault\'s restart delay') }) };
  }
  if (kind === 'pause') {
    if (separator === '+') throw new LoadOptionsError(`a pause fault takes :FOR (pause@5s:2s), got ${JSON.stringify(text)}`);
    return { kind: 'pause', atMs, forMs: extra === undefined ? 1000 : durationAt(extra, 'the pause fault\'s length') };
  }
  if (extra !== undefined) throw new LoadOptionsError(`a drop fault takes only its time (drop@8s), got ${JSON.stringify(text)}`);
  return { kind: 'drop', atMs };
}

/** `100:10s,200:10s`: a level for a time, each. */
export function parseStepsFlag(text: string, level: 'rate' | 'concurrency'): LoadStep[] {
  return text.split(',').map((part) => {
    const match = /^\s*(\d+(?:\.\d+)?)\s*:\s*(.+?)\s*$/.exec(part);
    if (match === null) throw new LoadOptionsError(`steps are LEVEL:DURATION separated by commas (e.g. 100:10s,200:10s), got ${JSON.stringify(part)}`);
    const value = Number(match[1]);
    return { [level]: value, durationMs: durationAt(match[2], `the step ${JSON.stringify(part)}`) } as LoadStep;
  });
}
