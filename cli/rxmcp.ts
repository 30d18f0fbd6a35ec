#!/usr/bin/env node
/** The `rxmcp` program: runs the command line (cli/main.ts) on this process's argv, stdout and stderr. */
import { runRxmcp } from './main.ts';
import { EXIT_GRACE_MS, endProcess } from './stopping.ts';

void runRxmcp(process.argv.slice(2), {
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
}).then(({ code, oneShot }) => {
  process.exitCode = code;
  // The command is done, and so is the process, whatever still holds it: for a client command a keep-alive
  // socket or a child's last words (a second for those), for a serving command that stopped a handle a library
  // cannot cancel (nats.js's reconnect delay), or stdout held by a client that reads nothing.
  endProcess(code, oneShot ? 1000 : EXIT_GRACE_MS);
});
