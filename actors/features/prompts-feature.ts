/**
 * `prompts/list` and `prompts/get`. Unknown prompts and missing required arguments are -32602.
 */
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import type { GetPromptResult, PromptMessage } from '../../core/protocol/prompts.ts';
import type { RequestHandler } from '../handler-types.ts';
import type { PromptReturn, ServerCatalog } from './catalog.ts';
import type { FeatureContext } from './feature-context.ts';
import { runFinished } from './handler-output.ts';
import { listHandler } from './list-handler.ts';
import { checkAccess } from './access.ts';
import { compatBlock, needsContentCompat } from './content-compat.ts';

export function promptHandlers(
  catalog: ServerCatalog,
  pageSize: number,
  context: (request: Parameters<RequestHandler>[1]) => FeatureContext,
): Record<string, RequestHandler> {
  return {
    'prompts/list': listHandler(catalog.prompts, 'prompts', pageSize),
    'prompts/get': (params, request) => {
      const name = params?.['name'];
      if (typeof name !== 'string') throw new WireError(ErrorCode.InvalidParams, 'Invalid params: prompts/get needs a string "name"');
      const entry = catalog.prompts.get(name);
      const unknown = (): WireError => new WireError(ErrorCode.InvalidParams, `Invalid params: unknown prompt "${name}"`);
      if (entry === undefined) throw unknown();
      if (entry.access !== undefined) checkAccess(entry.access, request.auth, `prompt "${name}"`, unknown);
      const args = readArguments(params?.['arguments']);
      const missing = (entry.definition.arguments ?? []).filter((argument) => argument.required === true && args[argument.name] === undefined);
      if (missing.length > 0) {
        throw new WireError(ErrorCode.InvalidParams, `Invalid params: prompt "${name}" needs the argument(s) ${missing.map((argument) => `"${argument.name}"`).join(', ')}`);
      }
      const revision = request.session.revision;
      return runFinished(() => entry.get(args, context(request)), {
        finish: (value: PromptReturn) => {
          const result = normalisePrompt(name, value, entry.definition.description);
          if (!needsContentCompat(revision) || revision === undefined) return result;
          return { ...result, messages: result.messages.map((message) => ({ ...message, content: compatBlock(message.content, revision) })) };
        },
      }, request);
    },
  };
}

function readArguments(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new WireError(ErrorCode.InvalidParams, 'Invalid params: prompt "arguments" must be an object of strings');
  }
  const args: Record<string, string> = {};
  for (const [key, argument] of Object.entries(value)) {
    if (typeof argument !== 'string') throw new WireError(ErrorCode.InvalidParams, `Invalid params: prompt argument "${key}" must be a string`);
    args[key] = argument;
  }
  return args;
}

/** Accepts a full result, a list of messages, or a string (one user message). */
function normalisePrompt(name: string, value: PromptReturn, description: string | undefined): GetPromptResult {
  const withDescription = (messages: readonly PromptMessage[]): GetPromptResult =>
    description === undefined ? { messages } : { description, messages };
  if (typeof value === 'string') return withDescription([{ role: 'user', content: { type: 'text', text: value } }]);
  if (Array.isArray(value)) return withDescription(value as PromptMessage[]);
  if (typeof value === 'object' && value !== null && Array.isArray((value as GetPromptResult).messages)) return value as GetPromptResult;
  throw new WireError(ErrorCode.InternalError, `Prompt "${name}" returned neither messages nor a string`);
}
