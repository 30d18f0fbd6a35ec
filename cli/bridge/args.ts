/** The command line of `rxmcp bridge`. */
import { serverSubjects } from '../../transports/nats/subjects.ts';
import type { EnvInheritance } from '../../transports/stdio/index.ts';
import { DEFAULT_MAX_CHILDREN } from './child-acceptor.ts';
import type { BridgeEra } from './era-gate.ts';
import { UsageError, choiceValue, closestFlag, parseCommand, positiveIntegerValue } from '../args.ts';
import type { NatsCredentials } from '../../transports/nats/connect-options.ts';
import { type NatsTrustArgs, natsConnectionFlags, natsConnectionHelp, natsConnectionOf, natsTrustFlags, natsTrustHelp, natsTrustOf } from '../nats-args.ts';
import { DEFAULT_DRAIN_MS, drainFlag, drainMsOf, stoppingHelp } from '../stopping.ts';

export const bridgeUsage = `usage:
  rxmcp bridge to-nats --nats <url> --name <server name> [options] -- <command> [args...]
      serve a stdio MCP server on NATS: one <command> process per MCP session (legacy era), announced on the
      NATS services protocol (discovery, rxmcp/mesh) as what one probing process of <command> says it is
      --prefix <p>               subject prefix (default mcp)
      --max-children <n>         most server processes at once (default ${DEFAULT_MAX_CHILDREN}); more sessions are refused
      --env NAME=VALUE           a variable for the server processes (repeatable)
      --inherit-env <policy>     what of this environment they inherit: safe (default), all, none, or NAME,NAME...
      --handover                 on SIGINT/SIGTERM leave the sessions to the other bridges of <server name>
                                 (they start new processes and replay the handshake) instead of ending them
  rxmcp bridge from-nats --nats <url> --name <server name> [--prefix <p>] [--era legacy|modern]
      present a server on NATS as a stdio MCP server (for desktop clients): stdin/stdout carry JSON-RPC only,
      diagnostics go to stderr
      --era legacy|modern        let only this protocol era through (default: whichever the client speaks)
      --silence-ms <n>           a request with no word from the server for this long fails (default 30000)

  both:
      --drain-ms <n>             once told to stop, how long requests in flight may still run (default ${DEFAULT_DRAIN_MS}; 0: none)

  The command of to-nats must exist (a program on PATH, or a path) before the bridge starts. -h, --help shows
  this help.

${natsConnectionHelp}

to-nats ${natsTrustHelp}

${stoppingHelp}
from-nats also stops when stdin ends (the client is gone), and exits 1 when its NATS connection is lost.`;

interface Common {
  /** The NATS URL. */
  readonly nats: string;
  readonly natsCredentials: NatsCredentials;
  readonly name: string;
  readonly prefix: string | undefined;
  /** Once told to stop, how long requests in flight may still be answered (`--drain-ms`, default 10 s). */
  readonly drainMs: number;
}

export interface ToNatsArgs extends Common {
  readonly mode: 'to-nats';
  readonly command: string;
  readonly args: readonly string[];
  readonly maxChildren: number;
  readonly env: Readonly<Record<string, string>>;
  readonly inheritEnv: EnvInheritance | undefined;
  readonly handover: boolean;
  /** The gateways whose identity assertions the bridge believes. */
  readonly trust: NatsTrustArgs | undefined;
}

export interface FromNatsArgs extends Common {
  readonly mode: 'from-nats';
  readonly era: BridgeEra | undefined;
  readonly silenceMs: number | undefined;
}

export type BridgeArgs = ToNatsArgs | FromNatsArgs;

const common = {
  ...natsConnectionFlags,
  ...drainFlag,
  name: { type: 'string' },
  prefix: { type: 'string' },
} as const;

const toNatsCommand = {
  command: 'rxmcp bridge to-nats',
  usage: bridgeUsage,
  commandLine: true,
  options: {
    ...common,
    'max-children': { type: 'string' },
    env: { type: 'string', multiple: true },
    'inherit-env': { type: 'string' },
    handover: { type: 'boolean' },
    ...natsTrustFlags,
  },
} as const;

const fromNatsCommand = {
  command: 'rxmcp bridge from-nats',
  usage: bridgeUsage,
  options: {
    ...common,
    era: { type: 'string' },
    'silence-ms': { type: 'string' },
  },
} as const;

/** The options of `rxmcp bridge <argv>`, or undefined when the user asked for help. */
export function parseBridgeArgs(argv: readonly string[]): BridgeArgs | undefined {
  const [mode, ...rest] = argv;
  if (mode === undefined) throw new UsageError('rxmcp bridge', 'needs to-nats or from-nats');
  if (mode === '--help' || mode === '-h' || mode === 'help') return undefined;
  if (mode === 'from-nats') {
    const parsed = parseCommand(fromNatsCommand, rest);
    if (parsed.help) return undefined;
    const { values } = parsed;
    const command = fromNatsCommand.command;
    return {
      mode,
      ...commonOf(command, values),
      era: values.era === undefined ? undefined : choiceValue(command, '--era', values.era, ['legacy', 'modern'] as const),
      silenceMs: values['silence-ms'] === undefined ? undefined : positiveIntegerValue(command, '--silence-ms', values['silence-ms']),
    };
  }
  if (mode === 'to-nats') {
    const parsed = parseCommand(toNatsCommand, rest);
    if (parsed.help) return undefined;
    const { values } = parsed;
    const command = toNatsCommand.command;
    const [program, ...args] = parsed.commandLine ?? [];
    if (program === undefined) throw new UsageError(command, 'needs the server command after --, for example: -- node server.js');
    const env: Record<string, string> = {};
    for (const entry of values.env ?? []) {
      const equals = entry.indexOf('=');
      if (equals <= 0) throw new UsageError(command, `--env takes NAME=VALUE, got ${JSON.stringify(entry)}`);
      env[entry.slice(0, equals)] = entry.slice(equals + 1);
    }
    const inherit = values['inherit-env'];
    return {
      mode,
      ...commonOf(command, values),
      command: program,
      args,
      maxChildren: values['max-children'] === undefined ? DEFAULT_MAX_CHILDREN : positiveIntegerValue(command, '--max-children', values['max-children']),
      env,
      inheritEnv: inherit === undefined ? undefined : inherit === 'safe' || inherit === 'all' || inherit === 'none' ? inherit : inherit.split(',').filter((entry) => entry !== ''),
      handover: values.handover === true,
      trust: natsTrustOf(command, values),
    };
  }
  const closest = closestFlag(mode, ['to-nats', 'from-nats']);
  throw new UsageError('rxmcp bridge', `needs to-nats or from-nats, got ${JSON.stringify(mode)}${closest === undefined ? '' : `; did you mean ${closest}?`}`);
}

function commonOf(command: string, values: Parameters<typeof natsConnectionOf>[1] & { readonly name?: string | undefined; readonly prefix?: string | undefined; readonly 'drain-ms'?: string | undefined }): Common {
  if (values.name === undefined) throw new UsageError(command, 'needs --name <server name>');
  // The binding's own check of the name and prefix, as a usage error.
  try {
    serverSubjects(values.prefix ?? 'mcp', values.name);
  } catch (error) {
    throw new UsageError(command, error instanceof Error ? error.message : String(error));
  }
  const connection = natsConnectionOf(command, values);
  return { nats: connection.url, natsCredentials: connection.credentials, name: values.name, prefix: values.prefix, drainMs: drainMsOf(command, values['drain-ms']) };
}
