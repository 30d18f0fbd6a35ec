/** The command line of `rxmcp bridge`. */
import { serverSubjects } from '../../transports/nats/index.ts';
import type { EnvInheritance } from '../../transports/stdio/index.ts';
import { DEFAULT_MAX_CHILDREN } from './child-acceptor.ts';
import type { BridgeEra } from './era-gate.ts';

export const bridgeUsage = `usage:
  rxmcp bridge to-nats --nats <url> --name <server name> [options] -- <command> [args...]
      serve a stdio MCP server on NATS: one <command> process per MCP session (legacy era)
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

  --nats defaults to $NATS_URL, then nats://127.0.0.1:4222.`;

interface Common {
  readonly nats: string;
  readonly name: string;
  readonly prefix: string | undefined;
}

export interface ToNatsArgs extends Common {
  readonly mode: 'to-nats';
  readonly command: string;
  readonly args: readonly string[];
  readonly maxChildren: number;
  readonly env: Readonly<Record<string, string>>;
  readonly inheritEnv: EnvInheritance | undefined;
  readonly handover: boolean;
}

export interface FromNatsArgs extends Common {
  readonly mode: 'from-nats';
  readonly era: BridgeEra | undefined;
  readonly silenceMs: number | undefined;
}

export type BridgeArgs = ToNatsArgs | FromNatsArgs;

export function parseBridgeArgs(argv: readonly string[]): BridgeArgs {
  const [mode, ...rest] = argv;
  if (mode !== 'to-nats' && mode !== 'from-nats') throw new RangeError(`rxmcp bridge needs to-nats or from-nats, not ${JSON.stringify(mode ?? '')}\n${bridgeUsage}`);
  const separator = rest.indexOf('--');
  const options = separator < 0 ? rest : rest.slice(0, separator);
  const commandLine = separator < 0 ? [] : rest.slice(separator + 1);
  let nats = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
  let name: string | undefined;
  let prefix: string | undefined;
  let era: BridgeEra | undefined;
  let maxChildren = DEFAULT_MAX_CHILDREN;
  let silenceMs: number | undefined;
  let inheritEnv: EnvInheritance | undefined;
  let handover = false;
  const env: Record<string, string> = {};
  const only = (flag: string, which: BridgeArgs['mode']): void => {
    if (mode !== which) throw new RangeError(`${flag} is an option of rxmcp bridge ${which}`);
  };
  for (let index = 0; index < options.length; index++) {
    const flag = options[index] as string;
    if (flag === '--handover') {
      only(flag, 'to-nats');
      handover = true;
      continue;
    }
    const value = options[index + 1];
    if (value === undefined || !flag.startsWith('--')) throw new RangeError(`${flag.startsWith('--') ? `${flag} needs a value` : `unexpected argument ${JSON.stringify(flag)}`}\n${bridgeUsage}`);
    index++;
    switch (flag) {
      case '--nats':
        nats = value;
        break;
      case '--name':
        name = value;
        break;
      case '--prefix':
        prefix = value;
        break;
      case '--era':
        only(flag, 'from-nats');
        if (value !== 'legacy' && value !== 'modern') throw new RangeError(`--era is legacy or modern, not ${JSON.stringify(value)}`);
        era = value;
        break;
      case '--silence-ms':
        only(flag, 'from-nats');
        silenceMs = positiveInteger(flag, value);
        break;
      case '--max-children':
        only(flag, 'to-nats');
        maxChildren = positiveInteger(flag, value);
        break;
      case '--env': {
        only(flag, 'to-nats');
        const equals = value.indexOf('=');
        if (equals <= 0) throw new RangeError(`--env takes NAME=VALUE, not ${JSON.stringify(value)}`);
        env[value.slice(0, equals)] = value.slice(equals + 1);
        break;
      }
      case '--inherit-env':
        only(flag, 'to-nats');
        inheritEnv = value === 'safe' || value === 'all' || value === 'none' ? value : value.split(',').filter((entry) => entry !== '');
        break;
      default:
        throw new RangeError(`unknown option for rxmcp bridge ${mode}: ${flag}\n${bridgeUsage}`);
    }
  }
  if (name === undefined) throw new RangeError(`rxmcp bridge ${mode} needs --name <server name>`);
  // Checks the name and prefix now, with the binding's own message.
  serverSubjects(prefix ?? 'mcp', name);
  if (mode === 'from-nats') {
    if (commandLine.length > 0) throw new RangeError('rxmcp bridge from-nats takes no command');
    return { mode, nats, name, prefix, era, silenceMs };
  }
  const [command, ...args] = commandLine;
  if (command === undefined) throw new RangeError(`rxmcp bridge to-nats needs the server command after --\n${bridgeUsage}`);
  return { mode, nats, name, prefix, command, args, maxChildren, env, inheritEnv, handover };
}

function positiveInteger(flag: string, value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed <= 0) throw new RangeError(`${flag} takes a positive integer, not ${JSON.stringify(value)}`);
  return parsed;
}
