/**
 * How specs start the `rxmcp` command as a real process. When dist/ is the build of the current sources (the spec
 * runner checks once per run, scripts/run-specs.ts, and says so in RXMCP_SPEC_BUILT_CLI), it is the built
 * dist/cli/rxmcp.js under plain node: the program users install, and a start-up of a fifth of the CPU of the sources
 * through tsx (every TypeScript module of the command goes through tsx's loader thread). Otherwise it is
 * cli/rxmcp.ts through tsx, so a spec never runs a stale build.
 */
import { fileURLToPath } from 'node:url';

/** The sources' entry (through tsx). */
export const CLI_SOURCE = fileURLToPath(new URL('../../cli/rxmcp.ts', import.meta.url));
/** The built entry (plain node). */
export const CLI_BUILT = fileURLToPath(new URL('../../dist/cli/rxmcp.js', import.meta.url));

/** Set by the spec runner, for the spec processes it starts, when dist/ is current. */
export const BUILT_CLI_ENV = 'RXMCP_SPEC_BUILT_CLI';

/** Whether this process runs the built command. */
export const runsBuiltCli = process.env[BUILT_CLI_ENV] === CLI_BUILT;

/** Node's arguments before the command's own: `rxmcp` is `process.execPath` with these, then its arguments. */
export const CLI_NODE_ARGS: readonly string[] = runsBuiltCli ? [CLI_BUILT] : ['--import', 'tsx', CLI_SOURCE];

/** `rxmcp <args>` as node's arguments (spawn `process.execPath` with them). */
export function rxmcpArgs(...args: readonly string[]): string[] {
  return [...CLI_NODE_ARGS, ...args];
}
