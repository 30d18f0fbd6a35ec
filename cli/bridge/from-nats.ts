/**
 * `rxmcp bridge from-nats`: presents an MCP server on NATS as a stdio server, for clients that launch their
 * servers as programs (desktop apps). This process's stdin and stdout are piped, frame for frame, to a NATS
 * client transport; stdout carries JSON-RPC only, every diagnostic goes to stderr. It ends when stdin ends (the
 * client is gone), on SIGINT/SIGTERM, or when the NATS connection is lost.
 */
import { createNatsClientTransport, serverSubjects } from '../../transports/nats/index.ts';
import { createStdioServerTransport } from '../../transports/stdio/index.ts';
import type { FromNatsArgs } from './args.ts';
import { eraGate } from './era-gate.ts';
import { pipeTransports } from './pipe.ts';
import { closeNats, connectNats } from './connect.ts';
import { onStopSignals } from '../../transports/stdio/stop-signals.ts';
import { LAST_ANSWERS_MS } from '../stopping.ts';

export async function bridgeFromNats(args: FromNatsArgs, report: (line: string) => void): Promise<number> {
  const subjects = serverSubjects(args.prefix ?? 'mcp', args.name);
  const connection = await connectNats(args.nats, `rxmcp bridge from-nats ${subjects.base}`, args.natsCredentials);
  const nats = createNatsClientTransport({
    connection,
    name: args.name,
    ...(args.prefix === undefined ? {} : { prefix: args.prefix }),
    ...(args.silenceMs === undefined ? {} : { silenceMs: args.silenceMs }),
  });
  // stdin's end is not the end: the answers to what the client sent last still come back from NATS.
  const stdio = createStdioServerTransport({ closeOnInputEnd: false });
  const local = args.era === undefined ? stdio : eraGate(stdio, args.era);
  const pipe = pipeTransports(local, nats, { names: ['the stdio client', `NATS ${subjects.base}`], answerMalformedFrom: 'a', report });
  report(`bridging stdio to ${subjects.base} on NATS ${args.nats}${args.era === undefined ? '' : ` (${args.era} era only)`}`);
  let stopping: Promise<void> | undefined;
  const stop = (why: string): void => {
    if (stopping !== undefined) return;
    report(`stopping (${why}): requests in flight have ${args.drainMs} ms to be answered`);
    // The last answers get a bounded moment: a client that reads nothing does not hold the bridge.
    stopping = pipe.close({ drainMs: args.drainMs, flushMs: LAST_ANSWERS_MS });
  };
  void stdio.inputEnded.then(() => stop('stdin ended'));
  const removeSignals = onStopSignals({ graceful: stop });
  const end = await pipe.done;
  // Closed by us (stdin's end, a signal): both sides closed together, whichever was first is no loss.
  const natsLost = stopping === undefined && (end.first === 'b' || connection.isClosed());
  await closeNats(connection);
  removeSignals();
  if (natsLost) {
    report(`the NATS side ended${end.reason === undefined ? '' : `: ${end.reason.message}`}`);
    return 1;
  }
  return 0;
}
