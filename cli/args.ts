/**
 * What every `rxmcp` command shares about its command line: `node:util` parseArgs with `--help`/`-h` added,
 * errors that name the bad flag or value and say what would be right, and the exit codes (0 ok, 1 runtime
 * failure, 2 usage error).
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A mistake on the command line: printed with a pointer to `--help`, exit code 2. */
export class UsageError extends Error {
  constructor(
    /** The command it belongs to, as typed (`rxmcp serve`). */
    readonly command: string,
    message: string,
  ) {
    super(`${command}: ${message}`);
    this.name = 'UsageError';
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

export interface CommandSpec<O extends Options> {
  /** As typed: `rxmcp serve`, `rxmcp bridge to-nats`. */
  readonly command: string;
  /** The full `--help` text. */
  readonly usage: string;
  readonly options: O;
  /** Whether the command takes positional arguments (default false). */
  readonly positionals?: boolean;
  /** Whether the command takes a command line after `--` (default false). */
  readonly commandLine?: boolean;
}

type Values<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>['values'];

export type ParsedCommand<O extends Options> =
  | { readonly help: true }
  | {
      readonly help: false;
      readonly values: Values<O>;
      readonly positionals: string[];
      /** The words after `--`, if it was given. */
      readonly commandLine: string[] | undefined;
    };

/**
 * Parses `argv` (the words after the command). `--help`/`-h` anywhere before a `--` wins over every other
 * mistake, so a user can always ask how to call a command.
 */
export function parseCommand<O extends Options>(spec: CommandSpec<O>, argv: readonly string[]): ParsedCommand<O> {
  const end = argv.indexOf('--');
  const own = end < 0 ? argv : argv.slice(0, end);
  if (own.includes('--help') || own.includes('-h')) return { help: true };
  const commandLine = end < 0 ? undefined : argv.slice(end + 1);
  try {
    if (commandLine !== undefined && spec.commandLine !== true) throw new UsageError(spec.command, 'takes no command after --');
    const { values, positionals } = parseArgs({ args: [...own], options: spec.options, allowPositionals: true, strict: true });
    if (spec.positionals !== true && positionals.length > 0) throw new UsageError(spec.command, `unexpected argument ${JSON.stringify(positionals[0])}`);
    return { help: false, values: values as Values<O>, positionals, commandLine };
  } catch (error) {
    throw usageErrorOf(spec, error);
  }
}

/** parseArgs's errors in our words: the flag named, the closest known flag suggested. */
function usageErrorOf(spec: CommandSpec<Options>, error: unknown): Error {
  if (error instanceof UsageError || !(error instanceof Error)) return error as Error;
  const code = (error as { code?: unknown }).code;
  const quoted = /'([^']+)'/.exec(error.message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = quoted.split(/[\s=]/)[0] ?? quoted;
    const known = Object.entries(spec.options).flatMap(([name, option]) => [`--${name}`, ...(option.short === undefined ? [] : [`-${option.short}`])]);
    const closest = closestFlag(flag, [...known, '--help']);
    return new UsageError(spec.command, `unknown option ${flag}${closest === undefined ? '' : `; did you mean ${closest}?`}`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = /--[\w-]+/.exec(quoted)?.[0] ?? quoted;
    if (/argument missing/.test(error.message)) return new UsageError(spec.command, `${flag} needs a value`);
    if (/does not take an argument/.test(error.message)) return new UsageError(spec.command, `${flag} takes no value`);
    if (/ambiguous/.test(error.message)) return new UsageError(spec.command, `${flag} needs a value; to pass one that starts with "-", write ${flag}=<value>`);
    return new UsageError(spec.command, error.message);
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return new UsageError(spec.command, `unexpected argument ${JSON.stringify(quoted)}`);
  return error;
}

/** The known flag within a small edit distance of what was typed, if there is one. */
export function closestFlag(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(typed.length / 3)) + 1;
  for (const candidate of known) {
    const distance = editDistance(typed, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance (two rows), for flag suggestions only: the inputs are a few characters long. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** A TCP port from the command line (or the environment), or a usage error that echoes what was given. */
export function portValue(command: string, flag: string, raw: string): number {
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(command, `${flag} must be a port number 0-65535, got ${JSON.stringify(raw)}`);
  return port;
}

/** A positive integer from the command line, or a usage error that echoes what was given. */
export function positiveIntegerValue(command: string, flag: string, raw: string): number {
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value <= 0) throw new UsageError(command, `${flag} must be a positive integer, got ${JSON.stringify(raw)}`);
  return value;
}

/** One of a few words, or a usage error that lists them. */
export function choiceValue<const C extends string>(command: string, flag: string, raw: string, choices: readonly C[]): C {
  if (!(choices as readonly string[]).includes(raw)) throw new UsageError(command, `${flag} must be ${choices.join(' or ')}, got ${JSON.stringify(raw)}`);
  return raw as C;
}
