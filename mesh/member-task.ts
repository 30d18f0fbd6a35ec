/**
 * Tasks through the mesh. A member's tool with task support (where the member declares
 * `tasks.requests.tools.call`) is served by the mesh with the same `execution.taskSupport`, and the mesh's server
 * runs tasks itself, in both eras (2025-11-25 task-augmented `tools/call`; the 2026-07-28 tasks extension): a
 * caller's task is a task of the mesh's own, and its work is a task on the member.
 *
 * Ids and routing: the caller sees only the mesh's task id (minted by the mesh's task store, a random UUID); the
 * member's id stays inside the mesh task's run, which holds the member session it was created on, so a
 * `tasks/get|result|cancel|list` (or a modern `tasks/get|update|cancel`, a listen naming the task) is answered by
 * the mesh's task feature under its own ownership rules (the caller's principal, else its session), and nothing
 * parses an id to find a member. The run follows the member's task (`tasks/result` there, without a deadline: the
 * task's own ttl bounds it) and ends the mesh's task with exactly its outcome; cancelling the mesh's task cancels
 * the member's (`tasks/cancel`); what the member asks during the task (elicitation, sampling, roots) reaches the
 * caller through its session with the member (mesh/caller-channels.ts), which parks the mesh's task in
 * `input_required` meanwhile. On the member, the task belongs to the caller's own session with it (or, with an
 * identity signer, to the caller's principal), so one caller never reaches another's task there either.
 *
 * A member that goes down fails its tasks in flight through the mesh with -32050 naming it (`tasks/result` answers
 * that error, `tasks/get` says `failed` with it as `statusMessage`); a member that ended the caller's session
 * with it after creating the task fails it the same way (its task went with that session).
 */
import { type InterceptedRequest, type Interceptor } from '../actors/interceptors.ts';
import type { FeatureContext } from '../actors/features/feature-context.ts';
import { continueAsTask, taskTool } from '../actors/features/tool-tasks.ts';
import type { ToolHandler } from '../actors/features/catalog.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { WireError, isLocalError } from '../core/errors.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import { isJsonObject } from '../core/protocol/guards.ts';
import { RELATED_TASK_META_KEY } from '../core/protocol/tasks.ts';
import type { CallToolResult, Tool, ToolTaskSupport } from '../core/protocol/tools.ts';
import { isSessionGone, memberUnavailable } from './errors.ts';
import type { MemberLink } from './member-link.ts';

/**
 * Where the mesh's `tools/call` interceptor tells its tool handler that the call is a 2025-11-25 task (and the ttl
 * asked for). The interceptor sets it from `params.task` and removes any a caller sent, so only the mesh writes it.
 */
const MESH_TASK_META_KEY = 'dev.rxmcp/mesh-task';

/** The task support the mesh gives a member's tool: the tool's own, if the member serves tool tasks. */
export function memberTaskSupport(link: MemberLink, tool: Tool): ToolTaskSupport {
  const support = tool.execution?.taskSupport ?? 'forbidden';
  if (support === 'forbidden') return 'forbidden';
  return link.servesToolTasks ? support : 'forbidden';
}

/** The handler of a member's tool on the mesh: an ordinary forwarded call, or, as a task, a task on the member. */
export function meshToolHandler(link: MemberLink, name: string, support: ToolTaskSupport): ToolHandler {
  const call = (args: JsonObject, context: FeatureContext): Promise<CallToolResult> =>
    link.forward(context, (session, options) => session.callTool(name, args, { ...options, validateOutput: false }));
  if (support === 'forbidden') return call;
  const handler = async (args: JsonObject, context: FeatureContext): Promise<CallToolResult> => {
    const legacyTask = context.meta?.[MESH_TASK_META_KEY];
    // A modern call that declared the tasks extension is a task at once (the tool is marked `at-once` below).
    const asTask = isJsonObject(legacyTask) || (await continueAsTask(context)) || support === 'required';
    if (!asTask) return call(args, context);
    const ttl = isJsonObject(legacyTask) && typeof legacyTask['ttl'] === 'number' ? legacyTask['ttl'] : undefined;
    return forwardAsTask(link, context, name, args, ttl);
  };
  return taskTool(handler, { start: 'at-once' });
}

/** Runs the call as a task on the member and answers with its outcome; the caller's cancellation cancels it there. */
function forwardAsTask(link: MemberLink, context: FeatureContext, name: string, args: JsonObject, ttl: number | undefined): Promise<CallToolResult> {
  let created: string | undefined;
  return link.forward(context, async (session, options) => {
    // A retry on a new session (the member ended the caller's) would run the tool twice: the task went with that session.
    if (created !== undefined) throw memberUnavailable(link.binding, `it ended the caller's session, and task "${created}" with it`);
    const { signal, timeoutMs } = options;
    // Not aborted by the caller's cancellation: the member may have made its task already, and a creation whose
    // answer the mesh stopped waiting for would leave that task running there. The member answers a task-augmented
    // call at once; a caller's cancellation that came meanwhile cancels the task just made (below).
    const { task } = await session.callToolAsTask(name, args, {
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(ttl === undefined ? {} : { ttl }),
    });
    const taskId = task.taskId;
    created = taskId;
    const cancel = (): void => {
      if (session.session.state === 'operating') void session.cancelTask(taskId).catch(() => undefined);
    };
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      if (signal?.aborted === true) cancel();
      // The member keeps the task for its ttl: a task still not ended past that (and a call's timeout more) never will.
      const deadline = task.ttl === null ? Infinity : task.ttl + (timeoutMs ?? 0);
      const result = await session.taskResult<CallToolResult>(taskId, { timeoutMs: deadline, ...(signal === undefined ? {} : { signal }) });
      return withoutRelatedTask(result);
    } catch (error) {
      if (isSessionGone(error)) throw memberUnavailable(link.binding, `it ended the caller's session, and task "${taskId}" with it`);
      if (isLocalError(error, 'RequestTimeout')) {
        throw new WireError(ErrorCode.InternalError, `Mesh member "${link.binding}" did not end task "${taskId}" within its ttl (${String(task.ttl)} ms)`, { data: { member: link.binding } });
      }
      throw error;
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  });
}

/** The member's result without the member's task id (the mesh's own task feature names the mesh's task). */
function withoutRelatedTask(result: CallToolResult): CallToolResult {
  const meta = result._meta;
  if (meta === undefined || !(RELATED_TASK_META_KEY in meta)) return result;
  const { [RELATED_TASK_META_KEY]: _member, ...rest } = meta;
  const { _meta: _dropped, ...plain } = result;
  return Object.keys(rest).length === 0 ? plain : { ...plain, _meta: rest };
}

/**
 * Marks a 2025-11-25 task-augmented `tools/call` for the mesh's tool handler (see {@link MESH_TASK_META_KEY}), and
 * unmarks every other call.
 */
export const markLegacyTaskCalls: Interceptor = (request, next) => next(marked(request));

function marked(request: InterceptedRequest): InterceptedRequest {
  const task = request.params?.['task'];
  const meta = request.meta;
  if (task === undefined) {
    if (meta === undefined || !(MESH_TASK_META_KEY in meta)) return request;
    const { [MESH_TASK_META_KEY]: _forged, ...rest } = meta;
    return request.with({ meta: rest });
  }
  const ttl = isJsonObject(task) ? task['ttl'] : undefined;
  return request.with({ meta: { ...meta, [MESH_TASK_META_KEY]: typeof ttl === 'number' ? { ttl } : {} } });
}
