/**
 * `rxmcp call <target> <tool> [key=value ...|--json-args '{...}']`: calls a tool and prints its result. Progress
 * shows on stderr while it runs; Ctrl-C cancels the call (the server is told) and exits 130; a server's form
 * elicitation is asked on the terminal; a tool error (`isError`) exits 1.
 */
import type { Subscription } from 'rxjs';
import { isWireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { CallToolResult, Tool } from '../../core/protocol/index.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { EXIT_FAILURE, EXIT_OK, UsageError, closestFlag, parseCommand } from '../args.ts';
import { clientCommandContext, connectionHelp, connectionOptions, withConnection } from './common.ts';
import { keyValues, toolArguments } from './arguments.ts';
import { progressView } from './progress.ts';
import { contentText } from './render.ts';

/** The exit code of a command stopped by Ctrl-C (128 + SIGINT), as shells report it. */
export const EXIT_INTERRUPTED = 130;

export const callUsage = `usage: rxmcp call <target> <tool> [key=value ...] [options]
       rxmcp call <target> <tool> '{"key": "value"}' [options]
       rxmcp call <tool> [key=value ...] [options] -- <command> [args...]

Calls a tool and prints its result: text blocks as they are, other content summarised (--json: the whole
result). key=value arguments are typed by the tool's input schema: numbers, true/false, JSON for objects and
arrays, the text as typed otherwise. Progress goes to stderr (a bar on a terminal, lines when piped). Ctrl-C
cancels the call and exits 130. Questions the server asks (elicitation) are asked on the terminal, and
declined when there is none. Exits 1 when the tool reports an error.

call options:
  --args JSON              all the arguments as one JSON object (instead of key=value; a lone {...} word
                           after the tool's name is read the same way)

${connectionHelp}`;

const callCommand = {
  command: 'rxmcp call',
  usage: callUsage,
  options: { ...connectionOptions, args: { type: 'string' } },
  positionals: true,
  commandLine: true,
} as const;

/** Runs `rxmcp call <argv>`; resolves with the exit code (undefined: help was asked for). */
export async function runCall(argv: readonly string[], print: (text: string) => void): Promise<number | undefined> {
  const parsed = parseCommand(callCommand, argv);
  if (parsed.help) return undefined;
  const command = callCommand.command;
  const context = clientCommandContext(command, parsed.values, parsed.positionals, parsed.commandLine);
  const [tool, ...words] = context.rest;
  if (tool === undefined) throw new UsageError(command, 'needs the name of the tool to call (rxmcp inspect <target> lists them)');
  const jsonArgs = parsed.values.args;
  if (jsonArgs !== undefined && words.length > 0) throw new UsageError(command, 'takes key=value arguments or --args, not both');
  // One word that is a JSON object is all the arguments too: `rxmcp call URL stats '{"numbers": [1, 2]}'`.
  const lone = words.length === 1 && words[0]?.trimStart().startsWith('{') === true ? words[0] : undefined;
  const given = jsonArgs !== undefined ? argumentsObject(command, jsonArgs) : lone !== undefined ? argumentsObject(command, lone) : undefined;
  // Their form is checked before connecting; their types once the tool's input schema is known.
  if (given === undefined) keyValues(command, words);

  let interrupt = (): void => undefined;
  const outcome = await withConnection(
    context,
    async ({ session }) => {
      const listed = await listedTools(session);
      const definition = listed.find((candidate) => candidate.name === tool);
      // Over HTTP a tool may be hidden from this caller until a wider login (`requires` on the server): it is
      // called anyway, so the server's 403 insufficient_scope can start the step-up; a refusal then reads as
      // "no such tool", as for one that does not exist.
      if (definition === undefined && context.target.kind !== 'http') throw noSuchTool(command, tool, listed);
      const args = given ?? toolArguments(command, tool, words, definition?.inputSchema);
      try {
        return await callWithProgress(session, tool, args, (stop) => (interrupt = stop));
      } catch (error) {
        if (definition === undefined && isWireError(error)) throw noSuchTool(command, tool, listed);
        throw error;
      }
    },
    () => interrupt(),
  );
  if (outcome === 'interrupted') {
    process.stderr.write(`${command}: cancelled ${tool}\n`);
    return EXIT_INTERRUPTED;
  }
  print(context.json ? JSON.stringify(outcome, null, 2) : resultText(outcome));
  if (outcome.isError === true) {
    process.stderr.write(`${command}: ${tool} reported an error\n`);
    return EXIT_FAILURE;
  }
  return EXIT_OK;
}

function argumentsObject(command: string, raw: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new UsageError(command, `the arguments must be a JSON object, got ${JSON.stringify(raw)}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(command, `the arguments must be a JSON object, got ${JSON.stringify(raw)}`);
  return value as JsonObject;
}

/** The tools the server lists to this caller (the listing also teaches the client their output schemas). */
async function listedTools(session: ClientSession): Promise<Tool[]> {
  return session.serverCapabilities?.tools === undefined ? [] : session.listTools();
}

function noSuchTool(command: string, name: string, tools: readonly Tool[]): UsageError {
  const closest = closestFlag(name, tools.map((tool) => tool.name));
  return new UsageError(command, `the server has no tool ${JSON.stringify(name)}${closest === undefined ? '' : `; did you mean ${closest}?`} (it has ${tools.map((tool) => tool.name).join(', ') || 'none'})`);
}

/**
 * Calls the tool, showing progress, until the result, an error, or SIGINT: then the call is unsubscribed from,
 * which sends the cancellation, and the outcome is `interrupted`.
 */
function callWithProgress(session: ClientSession, tool: string, args: JsonObject, onInterruptible: (stop: () => void) => void): Promise<CallToolResult | 'interrupted'> {
  const progress = progressView(process.stderr, tool);
  return new Promise((resolve, reject) => {
    let result: CallToolResult | undefined;
    const calling: { subscription?: Subscription } = {};
    const finish = (): void => {
      process.off('SIGINT', stop);
      progress.stop();
    };
    const stop = (): void => {
      finish();
      calling.subscription?.unsubscribe();
      resolve('interrupted');
    };
    process.once('SIGINT', stop);
    onInterruptible(stop);
    calling.subscription = session.callTool$(tool, args, { progress: true, timeoutMs: Infinity }).subscribe({
      next: (event) => {
        if (event.type === 'progress') progress.update(event.progress, event.total, event.message);
        else result = event.result;
      },
      error: (error: unknown) => {
        finish();
        reject(error);
      },
      complete: () => {
        finish();
        if (result === undefined) reject(new Error(`${tool} ended without a result`));
        else resolve(result);
      },
    });
  });
}

/** A result for people: its content blocks, or its structured content when it has no content. */
export function resultText(result: CallToolResult): string {
  const blocks = (result.content ?? []) as unknown[];
  if (blocks.length > 0) return blocks.map(contentText).join('\n');
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent, null, 2);
  return '(no content)';
}
