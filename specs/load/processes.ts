/** The programs the load specs start: the rxmcp echo server and the deliberately wrong server, as stdio targets. */
import { fileURLToPath } from 'node:url';
import { programArgs } from '../support/spec-program.ts';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));

export const SERVER_EVERYTHING = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

/** The rxmcp echo server (specs/load/echo-server.ts) on stdio. */
export const ECHO_CHILD = { command: process.execPath, args: [...programArgs(`${FIXTURES}rxmcp-echo-server.ts`)], cwd: REPO } as const;

/** The tricky server (fixtures/tricky-server.mjs) with its mode's flags. */
export function trickyChild(...flags: string[]): { readonly command: string; readonly args: readonly string[] } {
  return { command: process.execPath, args: [`${FIXTURES}tricky-server.mjs`, ...flags] };
}
