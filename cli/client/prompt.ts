/** `rxmcp prompt <target> <name> [key=value ...]`: gets a prompt and prints its messages. */
import type { GetPromptResult } from '../../core/protocol/index.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { UsageError, closestFlag, parseCommand } from '../args.ts';
import { keyValues } from './arguments.ts';
import { clientCommandContext, connectionHelp, connectionOptions, withConnection } from './common.ts';
import { contentText } from './render.ts';

export const promptUsage = `usage: rxmcp prompt <target> <name> [key=value ...] [options]
       rxmcp prompt <name> [key=value ...] [options] -- <command> [args...]

Gets a prompt with the arguments given (every value is text) and prints its messages, each under its role
(--json: the whole result).

${connectionHelp}`;

const promptCommand = { command: 'rxmcp prompt', usage: promptUsage, options: connectionOptions, positionals: true, commandLine: true } as const;

/** Runs `rxmcp prompt <argv>`; resolves with the exit code (undefined: help was asked for). */
export async function runPrompt(argv: readonly string[], print: (text: string) => void): Promise<number | undefined> {
  const parsed = parseCommand(promptCommand, argv);
  if (parsed.help) return undefined;
  const command = promptCommand.command;
  const context = clientCommandContext(command, parsed.values, parsed.positionals, parsed.commandLine);
  const [name, ...words] = context.rest;
  if (name === undefined) throw new UsageError(command, 'needs the name of the prompt (rxmcp inspect <target> lists them)');
  const args = Object.fromEntries(keyValues(command, words));
  const result = await withConnection(context, async ({ session }) => {
    await checkArguments(session, command, name, args);
    return session.getPrompt(name, args, { timeoutMs: context.timeoutMs });
  });
  print(context.json ? JSON.stringify(result, null, 2) : messagesText(result));
  return 0;
}

/** The prompt exists, every argument given is one it takes, and every one it requires is given. */
async function checkArguments(session: ClientSession, command: string, name: string, args: Readonly<Record<string, string>>): Promise<void> {
  const prompts = session.serverCapabilities?.prompts === undefined ? [] : await session.listPrompts();
  const prompt = prompts.find((candidate) => candidate.name === name);
  if (prompt === undefined) {
    const closest = closestFlag(name, prompts.map((candidate) => candidate.name));
    throw new UsageError(command, `the server has no prompt ${JSON.stringify(name)}${closest === undefined ? '' : `; did you mean ${closest}?`} (it has ${prompts.map((candidate) => candidate.name).join(', ') || 'none'})`);
  }
  const known = (prompt.arguments ?? []).map((argument) => argument.name);
  for (const key of Object.keys(args)) {
    if (known.includes(key)) continue;
    const closest = closestFlag(key, known);
    throw new UsageError(command, `${name} takes no argument ${JSON.stringify(key)}${closest === undefined ? '' : `; did you mean ${closest}?`} (it takes ${known.join(', ') || 'none'})`);
  }
  const missing = (prompt.arguments ?? []).filter((argument) => argument.required === true && args[argument.name] === undefined).map((argument) => argument.name);
  if (missing.length > 0) throw new UsageError(command, `${name} needs ${missing.map((key) => `${key}=...`).join(' ')}`);
}

function messagesText(result: GetPromptResult): string {
  const messages = result.messages.map((message) => `[${message.role}]\n${contentText(message.content)}`);
  return [...(result.description === undefined ? [] : [result.description, '']), ...messages].join('\n');
}
