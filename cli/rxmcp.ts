#!/usr/bin/env -S node --import tsx
/**
 * The rxmcp command line.
 *
 *   rxmcp demo    run a client and a server in one process over the in-memory transport
 */
import { runDemo } from './demo.ts';

const usage = `usage: rxmcp <command>

commands:
  demo    run an in-process client and server and show the protocol at work`;

async function main(argv: readonly string[]): Promise<number> {
  const [command] = argv;
  switch (command) {
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
