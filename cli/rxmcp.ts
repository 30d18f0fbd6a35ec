#!/usr/bin/env node
/**
 * The rxmcp command line.
 *
 *   rxmcp serve [--port N] [--host H] [--stdio]   the demo server on Streamable HTTP (or stdio)
 *   rxmcp demo                                   a client and a server in one process, in memory
 *   rxmcp bridge to-nats|from-nats ...           a stdio MCP server onto NATS, or a NATS-hosted server onto stdio
 *   rxmcp gateway --name S [--nats URL] ...      a Streamable HTTP front for the NATS-hosted server S
 */
import { runDemo } from './demo.ts';
import { parseServeArgs, serve } from './serve.ts';

/** bridge and gateway need `nats`, an optional peer of rxmcp: they are loaded only when asked for. */
async function natsCommand<M>(command: string, load: () => Promise<M>): Promise<M> {
  try {
    return await load();
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND' || !String((error as Error).message).includes("'nats'")) throw error;
    throw new Error(`rxmcp ${command} needs the "nats" package: install it beside rxmcp (npm install nats)`, { cause: error });
  }
}

const usage = `usage: rxmcp <command>

commands:
  serve [--port N] [--host H] [--stdio]   run the demo server on Streamable HTTP at 127.0.0.1 (default port 3000), or on stdio
  demo                                    run an in-process client and server and show the protocol at work
  bridge to-nats|from-nats ...            serve a stdio MCP server on NATS, or a NATS-hosted server on stdio
                                          (rxmcp bridge --help)
  gateway --name S [--nats URL] [--prefix P] [--host H] [--port N] [--path /mcp]
                                          serve the NATS-hosted MCP server S on Streamable HTTP (replicas share
                                          sessions and SSE events through JetStream)`;

async function main(argv: readonly string[]): Promise<number> {
  const [command] = argv;
  switch (command) {
    case 'serve':
      await serve(parseServeArgs(argv.slice(1)), (line) => process.stdout.write(`${line}\n`));
      return 0;
    case 'bridge': {
      const { bridgeUsage, runBridge } = await natsCommand('bridge', () => import('./bridge/index.ts'));
      if (argv[1] === undefined || argv[1] === '--help' || argv[1] === 'help') {
        process.stdout.write(`${bridgeUsage}\n`);
        return argv[1] === undefined ? 2 : 0;
      }
      return runBridge(argv.slice(1), (line) => process.stderr.write(`rxmcp bridge: ${line}\n`));
    }
    case 'gateway': {
      const { parseGatewayArgs, runGateway } = await natsCommand('gateway', () => import('./gateway/command.ts'));
      await runGateway(parseGatewayArgs(argv.slice(1)), (line) => process.stdout.write(`${line}\n`));
      return 0;
    }
    case 'demo':
      await runDemo((line) => process.stdout.write(`${line}\n`));
      return 0;
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(`${usage}\n`);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`unknown command: ${command}\n${usage}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`rxmcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
