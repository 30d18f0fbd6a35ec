/** `rxmcp bridge`: a stdio MCP server onto NATS (`to-nats`), and a server on NATS onto stdio (`from-nats`). */
import { parseBridgeArgs } from './args.ts';
import { bridgeFromNats } from './from-nats.ts';
import { bridgeToNats } from './to-nats.ts';

export { bridgeUsage } from './args.ts';

/** Runs `rxmcp bridge <argv>`; resolves with the exit code. Diagnostics go to `report` (stderr). */
export async function runBridge(argv: readonly string[], report: (line: string) => void): Promise<number> {
  const args = parseBridgeArgs(argv);
  return args.mode === 'to-nats' ? bridgeToNats(args, report) : bridgeFromNats(args, report);
}
