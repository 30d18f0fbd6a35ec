/**
 * How a tool with task support becomes a task in revision 2026-07-28 (tasks extension, SEP-2663). The wire
 * only says whether a tool may (`execution.taskSupport: "optional"`) or must (`"required"`) run as a task;
 * when it actually does is the server's decision, taken per call, and only for a request that declared the
 * extension (a request that did not is never answered with a task):
 *
 * | taskSupport | start (see {@link taskTool}) | the call, when the request declared the extension |
 * |---|---|---|
 * | `required` | `at-once` (default) | answered at once with a task; the handler runs in the background |
 * | `required` | `on-demand` | runs in the request (its input needs are multi round-trip rounds) until the handler calls {@link continueAsTask}; if it finishes first, it is answered with a task that is already complete |
 * | `optional` | `on-demand` (default) | an ordinary call, unless the handler calls {@link continueAsTask} |
 * | `optional` | `at-once` | as `required`/`at-once` |
 *
 * A `required` tool called by a request that did not declare the extension is refused with -32021 before its
 * handler runs; an `optional` one is then an ordinary call and {@link continueAsTask} resolves `false`.
 * In the 2025-11-25 era none of this applies (tasks there are the client's `params.task` choice).
 *
 * @example
 * ```ts
 * server.tool({ name: 'render', execution: { taskSupport: 'optional' } }, taskTool(async (args, ctx) => render(args, ctx.signal)));
 * server.tool({ name: 'deploy', execution: { taskSupport: 'required' } }, taskTool(async (args, ctx) => {
 *   const ok = await ctx.elicit({ message: 'Deploy?', requestedSchema: CONFIRM }); // an input_required round
 *   await continueAsTask(ctx); // the request is answered with the task now
 *   return deploy(ok, ctx.signal);
 * }, { start: 'on-demand' }));
 * ```
 */
import type { FeatureContext } from './feature-context.ts';

/** When a call of a tool with task support becomes a task (see the table above). */
export type TaskStart = 'at-once' | 'on-demand';

/** What {@link continueAsTask} needs of the call it is made in. */
export interface Escalation {
  escalate(): Promise<boolean>;
}

const starts = new WeakMap<object, TaskStart>();
const calls = new WeakMap<FeatureContext, Escalation>();

/**
 * Marks a tool handler with when its calls become tasks (default `at-once`). Returns a new handler; register
 * that one. It has an effect only on tools whose `execution.taskSupport` is `optional` or `required`, on
 * servers that enable the modern tasks extension (`modern.tasks`).
 */
export function taskTool<A, C extends FeatureContext, R>(handler: (args: A, context: C) => R, options: { readonly start?: TaskStart } = {}): (args: A, context: C) => R {
  const marked = (args: A, context: C): R => handler(args, context);
  starts.set(marked, options.start ?? 'at-once');
  return marked;
}

/** The start a handler was marked with, if any. */
export function taskStartOf(handler: object): TaskStart | undefined {
  return starts.get(handler);
}

/**
 * From a tool handler: answer the request with a task now and go on as that task. Resolves `true` once the
 * call is a task (at once when it already is), `false` when it cannot become one (the tool has no task
 * support, the request did not declare the extension, the server does not enable it, or the request is gone).
 * Client input asked for before must have been awaited (it rejects otherwise). After it, the handler's
 * `elicit`, `sample` and `roots` park the task in `input_required` until the client answers with
 * `tasks/update`, and its signal aborts on `tasks/cancel`.
 */
export function continueAsTask(context: FeatureContext): Promise<boolean> {
  const call = calls.get(context);
  return call === undefined ? Promise.resolve(false) : call.escalate();
}

/** Ties a handler context to the call it was made for (done by the tasks feature). */
export function bindContext(context: FeatureContext, call: Escalation): void {
  calls.set(context, call);
}
