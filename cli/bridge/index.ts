/** `rxmcp bridge`: a stdio MCP server onto NATS (`to-nats`), and a server on NATS onto stdio (`from-nats`). */
import { UsageError } from '../args.ts';
import { resolveCommand } from '../resolve-command.ts';
import { withNats } from '../optional-peer.ts';
import { bridgeUsage, parseBridgeArgs } from './args.ts';

export { bridgeUsage } from './args.ts';

/**
 * Runs `rxmcp bridge <argv>`; resolves with the exit code. Help goes to `print` (stdout), diagnostics to
 * `report` (stderr).
 */
export async function runBridge(argv: readonly string[], report: (line: string) => void, print: (line: string) => void): Promise<number> {
  const args = parseBridgeArgs(argv);
  if (args === undefined) {
    print(bridgeUsage);
    return 0;
  }
  if (args.mode === 'to-nats') {
    // A command that cannot start would fail only at the first session: say so before serving anything.
    const resolved = resolveCommand(args.command);
    if ('problem' in resolved) throw new UsageError('rxmcp bridge to-nats', `cannot run the server command: ${resolved.problem}`);
    const { bridgeToNats } = await withNats(() => import('./to-nats.ts'));
    return bridgeToNats(args, report);
  }
  const { bridgeFromNats } = await withNats(() => import('./from-nats.ts'));
  return bridgeFromNats(args, report);
}
