/**
 * The client's answers to server requests: sampling, elicitation (form and URL mode) and roots. Each is
 * refused with -32601 when the client has no handler for it (the method table already refuses what the
 * client did not declare).
 */
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult } from '../../core/protocol/elicitation.ts';
import type { Root } from '../../core/protocol/roots.ts';
import type { CreateMessageParams, CreateMessageResult } from '../../core/protocol/sampling.ts';
import { applyElicitationDefaults } from '../../core/schema/elicitation-schema.ts';
import { isCreateMessageResult } from '../../core/protocol/guards.ts';
import type { RequestHandler, SessionView } from '../handler-types.ts';
import { type Output, runFinished } from './handler-output.ts';

export interface ClientRequestContext {
  readonly signal: AbortSignal;
  readonly session: SessionView;
}

export type SamplingHandler = (params: CreateMessageParams, context: ClientRequestContext) => Output<CreateMessageResult>;
export type FormElicitationHandler = (params: ElicitRequestFormParams, context: ClientRequestContext) => Output<ElicitResult>;
export type UrlElicitationHandler = (params: ElicitRequestURLParams, context: ClientRequestContext) => Output<ElicitResult>;
export type RootsSource = readonly Root[] | ((context: ClientRequestContext) => readonly Root[] | PromiseLike<readonly Root[]>);

export interface ClientRequestHandlers {
  readonly sampling?: SamplingHandler;
  readonly elicitation?: { readonly form?: FormElicitationHandler; readonly url?: UrlElicitationHandler };
  readonly roots?: () => RootsSource;
  /** Told of every URL-mode elicitation a server sent, so its later completion can be recognised. */
  readonly onUrlElicitation?: (session: SessionView, elicitationId: string) => void;
}

/** Roots must be `file://` URIs (every revision): refuse others rather than hand them to a server. */
export function checkRoots(roots: readonly Root[]): readonly Root[] {
  for (const root of roots) {
    if (typeof root.uri !== 'string' || !root.uri.startsWith('file://')) {
      throw new RangeError(`Root ${JSON.stringify(root.uri)} is not a file:// URI`);
    }
  }
  return roots;
}

function invalid(message: string): WireError {
  return new WireError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}

export function clientRequestHandlers(handlers: ClientRequestHandlers): Record<string, RequestHandler> {
  const table: Record<string, RequestHandler> = {};
  const sampling = handlers.sampling;
  if (sampling !== undefined) {
    table['sampling/createMessage'] = (params, request) => {
      if (!Array.isArray(params?.['messages']) || typeof params?.['maxTokens'] !== 'number') {
        throw invalid('sampling/createMessage needs "messages" and a numeric "maxTokens"');
      }
      return runFinished(() => sampling(params as unknown as CreateMessageParams, request), {
        finish: (result: CreateMessageResult) => {
          // Our own handler's answer is checked before it leaves: a malformed one would only confuse the server.
          if (!isCreateMessageResult(result)) throw new WireError(ErrorCode.InternalError, 'The sampling handler returned a malformed result (it needs role, content and model)');
          return result;
        },
      }, request);
    };
  }
  const elicitation = handlers.elicitation;
  if (elicitation !== undefined) {
    table['elicitation/create'] = (params, request) => {
      if (typeof params?.['message'] !== 'string') throw invalid('elicitation/create needs a string "message"');
      if (params['mode'] === 'url') {
        const url = elicitation.url;
        // The method table refuses URL mode when the client did not declare it; this covers a handler-less declaration.
        if (url === undefined) throw invalid('this client does not support URL-mode elicitation');
        if (typeof params['url'] !== 'string') throw invalid('URL-mode elicitation needs a string "url"');
        const elicitationId = params['elicitationId'];
        if (typeof elicitationId === 'string') handlers.onUrlElicitation?.(request.session, elicitationId);
        return runFinished(() => url(params as unknown as ElicitRequestURLParams, request), { finish: (result: ElicitResult) => result }, request);
      }
      const form = elicitation.form;
      if (form === undefined) throw invalid('this client does not support form-mode elicitation');
      const schema = params['requestedSchema'];
      if (typeof schema !== 'object' || schema === null) throw invalid('form-mode elicitation needs a "requestedSchema" object');
      return runFinished(() => form(params as unknown as ElicitRequestFormParams, request), {
        // A user who accepts without touching a field means its default: fill them in.
        finish: (result: ElicitResult) =>
          result.action === 'accept'
            ? { ...result, content: applyElicitationDefaults(schema as JsonObject, (result.content ?? {}) as JsonObject) as ElicitResult['content'] }
            : result,
      }, request);
    };
  }
  const roots = handlers.roots;
  if (roots !== undefined) {
    table['roots/list'] = async (_params, request) => {
      const source = roots();
      const list = typeof source === 'function' ? await source(request) : source;
      try {
        return { roots: checkRoots(list) };
      } catch (error) {
        throw new WireError(ErrorCode.InternalError, error instanceof Error ? error.message : 'invalid roots');
      }
    };
  }
  return table;
}
