#!/usr/bin/env node
/** The `rxmcp` program: runs the command line (cli/main.ts) on this process's argv, stdout and stderr. */
import { runRxmcp } from './main.ts';

void runRxmcp(process.argv.slice(2), {
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
}).then(({ code, oneShot }) => {
  process.exitCode = code;
  // A client command is done: a keep-alive socket or a child's last words must not hold the process open.
  if (oneShot) setTimeout(() => process.exit(code), 1000).unref();
});
