/** `rxmcp read <target> <uri>`: reads a resource and prints its contents (text as it is, blobs summarised). */
import type { ReadResourceResult } from '../../core/protocol/index.ts';
import { UsageError, parseCommand } from '../args.ts';
import { clientCommandContext, connectionHelp, connectionOptions, withConnection } from './common.ts';
import { resourceText } from './render.ts';

export const readUsage = `usage: rxmcp read <target> <uri> [options]
       rxmcp read <uri> [options] -- <command> [args...]

Reads a resource (or a URI of one of the server's templates) and prints its contents: text as it is, binary
contents summarised (--json: the whole result).

${connectionHelp}`;

const readCommand = { command: 'rxmcp read', usage: readUsage, options: connectionOptions, positionals: true, commandLine: true } as const;

/** Runs `rxmcp read <argv>`; resolves with the exit code (undefined: help was asked for). */
export async function runRead(argv: readonly string[], print: (text: string) => void): Promise<number | undefined> {
  const parsed = parseCommand(readCommand, argv);
  if (parsed.help) return undefined;
  const command = readCommand.command;
  const context = clientCommandContext(command, parsed.values, parsed.positionals, parsed.commandLine);
  const [uri, ...extra] = context.rest;
  if (uri === undefined) throw new UsageError(command, 'needs the URI of the resource to read (rxmcp inspect <target> lists them)');
  if (extra.length > 0) throw new UsageError(command, `unexpected argument ${JSON.stringify(extra[0])}`);
  const result = await withConnection(context, ({ session }) => session.readResource(uri, { timeoutMs: context.timeoutMs }));
  print(context.json ? JSON.stringify(result, null, 2) : contentsText(result));
  return 0;
}

function contentsText(result: ReadResourceResult): string {
  return result.contents.map((contents) => resourceText(contents as unknown as { readonly [key: string]: unknown })).join('\n');
}
