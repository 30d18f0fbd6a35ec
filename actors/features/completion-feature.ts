/**
 * `completion/complete`: argument suggestions for prompts (`ref/prompt`) and resource template variables
 * (`ref/resource`), with the already-resolved arguments as context. At most 100 values go back, as the spec
 * requires; `total` and `hasMore` say when there were more.
 */
import type { AuthInfo } from '../../core/auth.ts';
import { admits } from './access.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { CompleteResult } from '../../core/protocol/completion.ts';
import type { RequestHandler } from '../handler-types.ts';
import type { Completer, ServerCatalog } from './catalog.ts';

const MAX_VALUES = 100;
const empty: CompleteResult = Object.freeze({ completion: Object.freeze({ values: [], hasMore: false }) });

function invalid(message: string): WireError {
  return new WireError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}

function completerFor(catalog: ServerCatalog, ref: JsonObject, argument: string, auth: AuthInfo | undefined): Completer | undefined {
  switch (ref['type']) {
    case 'ref/prompt': {
      const name = ref['name'];
      if (typeof name !== 'string') throw invalid('a prompt reference needs a string "name"');
      const prompt = catalog.prompts.get(name);
      // Completion answers only about what the caller may use (no hint that the rest exists).
      if (prompt === undefined || !admits(prompt.access, auth)) throw invalid(`unknown prompt "${name}"`);
      return prompt.complete[argument];
    }
    case 'ref/resource': {
      const uri = ref['uri'];
      if (typeof uri !== 'string') throw invalid('a resource reference needs a string "uri"');
      const template = catalog.templates.get(uri);
      if (template === undefined || !admits(template.access, auth)) throw invalid(`unknown resource template "${uri}"`);
      return template.complete[argument];
    }
    default:
      throw invalid('ref.type must be "ref/prompt" or "ref/resource"');
  }
}

function readContext(params: JsonObject): Record<string, string> {
  const args = (params['context'] as JsonObject | undefined)?.['arguments'];
  const resolved: Record<string, string> = {};
  if (typeof args !== 'object' || args === null) return resolved;
  for (const [key, value] of Object.entries(args)) if (typeof value === 'string') resolved[key] = value;
  return resolved;
}

function shape(found: ReturnType<Completer> extends infer R ? Awaited<R> : never): CompleteResult {
  const values = Array.isArray(found) ? (found as readonly string[]) : (found as { values: readonly string[] }).values;
  const extra = Array.isArray(found) ? {} : (found as { total?: number; hasMore?: boolean });
  const clipped = values.slice(0, MAX_VALUES);
  const total = extra.total ?? values.length;
  return {
    completion: {
      values: clipped,
      total,
      hasMore: extra.hasMore ?? values.length > MAX_VALUES,
    },
  };
}

export function completionHandlers(catalog: ServerCatalog): Record<string, RequestHandler> {
  return {
    'completion/complete': (params, request) => {
      const ref = params?.['ref'];
      const argument = params?.['argument'];
      if (typeof ref !== 'object' || ref === null || Array.isArray(ref)) throw invalid('completion/complete needs a "ref" object');
      if (typeof argument !== 'object' || argument === null || typeof (argument as JsonObject)['name'] !== 'string' || typeof (argument as JsonObject)['value'] !== 'string') {
        throw invalid('completion/complete needs "argument" with string "name" and "value"');
      }
      const { name, value } = argument as { name: string; value: string };
      const completer = completerFor(catalog, ref as JsonObject, name, request.auth);
      if (completer === undefined) return empty;
      const found = completer(value, { arguments: readContext(params as JsonObject) });
      return found instanceof Promise || (typeof found === 'object' && found !== null && 'then' in found)
        ? Promise.resolve(found).then(shape)
        : shape(found);
    },
  };
}
