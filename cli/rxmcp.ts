#!/usr/bin/env -S node --import tsx
/**
 * The rxmcp command line.
 *
 *   rxmcp serve [--port N] [--host H] [--stdio]   the demo server on Streamable HTTP (or stdio)
 *   rxmcp demo                                   a client and a server in one process, in memory
 */
import { runDemo } from './demo.ts';
import { parseServeArgs, serve } from './serve.ts';

const usage = `usage: rxmcp <command>

commands:
  serve [--port N] [--host H] [--stdio]   run the demo server on Streamable HTTP at 127.0.0.1 (default port 3000), or on stdio
  demo                                    run an in-process client and server and show the protocol at work`;

async function main(argv: readonly string[]): Promise<number> {
  const [command] = argv;
  switch (command) {
    case 'serve':
      await serve(parseServeArgs(argv.slice(1)), (line) => process.stdout.write(`${line}\n`));
      return 0;
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
