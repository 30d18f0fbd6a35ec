/**
 * The rxmcp command line. Every command and subcommand takes --help; exit codes are 0 (ok), 1 (a failure
 * while running) and 2 (a mistake on the command line), and 130 for a call stopped with Ctrl-C.
 */
import { EXIT_FAILURE, EXIT_USAGE, UsageError, closestFlag } from './args.ts';
import { bridgeUsage, runBridge } from './bridge/index.ts';
import { callUsage, runCall } from './client/call.ts';
import { inspectUsage, runInspect } from './client/inspect.ts';
import { loginUsage, runLogin } from './client/login-command.ts';
import { logoutUsage, runLogout } from './client/logout.ts';
import { promptUsage, runPrompt } from './client/prompt.ts';
import { readUsage, runRead } from './client/read.ts';
import { demoUsage, runDemoCommand } from './demo.ts';
import { devUsage, runDev } from './dev/index.ts';
import { gatewayUsage, parseGatewayArgs, runGateway } from './gateway/command.ts';
import { loadUsage, runLoadCommand } from './load/command.ts';
import { parseServeArgs, serve, serveUsage } from './serve.ts';

/** Where a command's words go: `out` is stdout (results, help), `err` is stderr (diagnostics, mistakes). */
export interface CliOutput {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

interface Command {
  readonly usage: string;
  /** Resolves with the exit code, or undefined when the user asked for help (the usage is printed, exit 0). */
  run(argv: readonly string[]): Promise<number | undefined>;
  /** A one-shot client command: the process exits once it is done, even if a socket lingers. */
  readonly oneShot?: boolean;
}

function commandsFor({ out, err }: CliOutput): Readonly<Record<string, Command>> {
  return {
    serve: {
      usage: serveUsage,
      async run(argv) {
        const options = parseServeArgs(argv);
        if (options === undefined) return undefined;
        // On stdio, stdout carries the protocol: every word for people goes to stderr.
        await serve(options, options.stdio ? err : out);
        return 0;
      },
    },
    demo: { usage: demoUsage, run: (argv) => runDemoCommand(argv, out) },
    inspect: { usage: inspectUsage, run: (argv) => runInspect(argv, out), oneShot: true },
    call: { usage: callUsage, run: (argv) => runCall(argv, out), oneShot: true },
    read: { usage: readUsage, run: (argv) => runRead(argv, out), oneShot: true },
    prompt: { usage: promptUsage, run: (argv) => runPrompt(argv, out), oneShot: true },
    login: { usage: loginUsage, run: (argv) => runLogin(argv, out), oneShot: true },
    logout: { usage: logoutUsage, run: (argv) => runLogout(argv, out) },
    load: { usage: loadUsage, run: (argv) => runLoadCommand(argv, { out, err }), oneShot: true },
    dev: { usage: devUsage, run: (argv) => runDev(argv, out) },
    bridge: { usage: bridgeUsage, run: (argv) => runBridge(argv, (line) => err(`rxmcp bridge: ${line}`), out) },
    gateway: {
      usage: gatewayUsage,
      async run(argv) {
        const args = parseGatewayArgs(argv);
        if (args === undefined) return undefined;
        await runGateway(args, out);
        return 0;
      },
    },
  };
}

const usage = `usage: rxmcp <command> [options]    (rxmcp <command> --help for each)

serving:
  serve [--port N] [--host H] [--stdio] [--verbose]
                                  run the demo server on Streamable HTTP at 127.0.0.1 (default port 3000),
                                  or on stdio (stdout carries MCP only); --auth-issuer URL asks for tokens
  gateway --name S [--nats URL] ...
                                  serve the NATS-hosted MCP server S on Streamable HTTP (--auth-issuer too)
  gateway --mesh [--nats URL] [--select B,...] [--serve-nats NAME] ...
                                  serve the union of every MCP server on NATS (one catalog, each request
                                  routed to its server) on Streamable HTTP, and on NATS with --serve-nats
  bridge to-nats|from-nats ...    serve a stdio MCP server on NATS, or a NATS-hosted server on stdio
  demo                            a client and a server in one process, showing the protocol at work

using a server (<target>: http(s)://host:port/mcp, nats://host:port/<name>, or -- <command> [args...] last):
  inspect <target>                the server's info, capabilities, tools, resources, templates and prompts
  call <target> <tool> [key=value ...]
                                  call a tool (progress on stderr, Ctrl-C cancels, questions asked on the terminal)
  read <target> <uri>             read a resource
  prompt <target> <name> [key=value ...]
                                  get a prompt
  login <url>                     log in to an HTTP server ahead of a script (inspect/call/read/prompt also log
                                  in when a server asks: browser, loopback redirect, tokens kept per server)
  logout <url>                    forget (and revoke) the OAuth login kept for an HTTP server
  load <target> [--rate N|--concurrency N] [--duration D] ...
                                  load, soak and chaos test any MCP server: every answer checked, latency from
                                  HDR histograms, --json, --report FILE.html, budgets for CI

development:
  dev auth-server [--port N]      a development authorization server on 127.0.0.1 (oidc-provider, installed
                                  beside rxmcp) to try serve --auth-issuer and the logins of call

exit codes: 0 ok, 1 failure, 2 usage error, 130 interrupted (Ctrl-C). The serving commands (serve, gateway,
bridge) stop on SIGTERM or SIGINT within --drain-ms (default 10 s) and a second more, exit code 0; a second
signal ends them at once (rxmcp <command> --help)`;

/** Runs `rxmcp <argv>`; resolves with the exit code, and whether the command was a one-shot client command. */
export async function runRxmcp(argv: readonly string[], output: CliOutput): Promise<{ readonly code: number; readonly oneShot: boolean }> {
  const { out, err } = output;
  const commands = commandsFor(output);
  const [name, ...rest] = argv;
  if (name === 'help' || name === '--help' || name === '-h') {
    const topic = name === 'help' && rest[0] !== undefined ? commands[rest[0]] : undefined;
    out(topic?.usage ?? usage);
    return { code: 0, oneShot: false };
  }
  if (name === undefined) {
    err(usage);
    return { code: EXIT_USAGE, oneShot: false };
  }
  const command = commands[name];
  if (command === undefined) {
    const closest = closestFlag(name, Object.keys(commands));
    err(`rxmcp: unknown command ${JSON.stringify(name)}${closest === undefined ? '' : `; did you mean ${closest}?`}\n(rxmcp --help lists the commands)`);
    return { code: EXIT_USAGE, oneShot: false };
  }
  try {
    const code = await command.run(rest);
    if (code === undefined) out(command.usage);
    return { code: code ?? 0, oneShot: command.oneShot === true };
  } catch (error) {
    if (error instanceof UsageError) {
      err(`${error.message}\n(see ${error.command} --help)`);
      return { code: EXIT_USAGE, oneShot: command.oneShot === true };
    }
    err(`rxmcp ${name}: ${error instanceof Error ? error.message : String(error)}`);
    return { code: EXIT_FAILURE, oneShot: command.oneShot === true };
  }
}
