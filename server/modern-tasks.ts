/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) in the modern era of a server built by
 * `createServer`: enabled by `modern.tasks` (independently of the 2025-11-25 `tasks` option, which keeps
 * governing the legacy era only). See actors/features/modern-tasks-feature.ts for the behaviour and
 * actors/features/tool-tasks.ts for when a tool's call becomes a task.
 */
import type { Observable } from 'rxjs';
import type { RequestContext, RequestHandler } from '../actors/handler-types.ts';
import type { ToolEntry } from '../actors/features/catalog.ts';
import type { FeatureContext } from '../actors/features/feature-context.ts';
import { type ModernTasksFeature, TASKS_EXTENSION_CAPABILITY, createModernTasksFeature } from '../actors/features/modern-tasks-feature.ts';
import { isJsonObject } from '../core/protocol/guards.ts';
import { declaresTasks } from '../core/protocol/modern-tasks.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import type { Tool } from '../core/protocol/tools.ts';
import type { TaskStore } from '../core/catalog/task-store.ts';
import { InMemoryTaskStore } from './in-memory-task-store.ts';
import type { Clock } from '../core/clock.ts';
import type { ServerCapabilities } from '../core/protocol/capabilities.ts';
import { LEGACY_TASK_METHODS } from '../core/protocol/declarations/tasks.ts';
import { toolsCall, toolsList } from '../core/protocol/declarations/tools.ts';

export interface ModernTaskOptions {
  /**
   * Where tasks are kept (default: an in-memory store on the session clock, closed with the server). A task's
   * status and outcome may live in a shared store, but its running handler, and so the input it waits for,
   * lives in the process that started it: a store shared by several processes carries a `relay` that takes
   * `tasks/update`, `tasks/cancel` and the pending input there, and fails a task whose process is gone
   * (`createJetStreamTaskStore` of rxmcp/nats; docs/nats-binding.md, "Tasks across processes").
   */
  readonly store?: TaskStore;
  /** How long a task is kept from its creation (default 1 h); `null` keeps it until the server closes. */
  readonly ttlMs?: number | null;
  /** The polling interval suggested to clients (default 1000 ms). */
  readonly pollIntervalMs?: number;
  /** Tasks the default store holds at once, finished ones included until they expire (default 10 000). */
  readonly maxTasks?: number;
}

type ContextFactory = (request: RequestContext) => FeatureContext;

/** What the modern tasks need of the server's tools. */
export interface ModernToolHooks {
  readonly tool: (name: string) => ToolEntry | undefined;
  /** Decorates the handler contexts of the server's one `tools/call` with `wrap(<the server's factory>)`. */
  readonly wrapToolContext: (wrap: (base: ContextFactory) => ContextFactory) => void;
}

export interface ModernTasksSetup {
  readonly options: ModernTaskOptions | undefined;
  readonly tools: ModernToolHooks | undefined;
  readonly clock: Clock | undefined;
  readonly ending$: Observable<unknown>;
}

const DEFAULT_TTL_MS = 60 * 60_000;
const DEFAULT_POLL_INTERVAL_MS = 1000;

/**
 * Puts the extension's handlers into the modern handler table (or keeps the legacy task handlers out of it
 * when it is not enabled). Returns the feature when it is enabled. Either way `tools/list` shows a tool's
 * `execution.taskSupport` only to a request that declared the extension of a server that enables it: to anyone
 * else it means nothing (no call of theirs can become a task).
 */
export function installModernTasks(handlers: Map<string, RequestHandler>, setup: ModernTasksSetup): ModernTasksFeature | undefined {
  for (const method of LEGACY_TASK_METHODS) handlers.delete(method);
  const { options, tools } = setup;
  const enabled = options !== undefined && tools !== undefined;
  const list = handlers.get(toolsList.method);
  if (list !== undefined) handlers.set(toolsList.method, taskSupportShownTo(list, enabled));
  if (!enabled) return undefined;
  const ownStore = options.store === undefined;
  const store = options.store ?? new InMemoryTaskStore({
    maxTasks: options.maxTasks ?? 10_000,
    maxTasksPerOwner: options.maxTasks ?? 10_000,
    ...(setup.clock === undefined ? {} : { clock: setup.clock }),
  });
  const feature = createModernTasksFeature({
    store,
    ttlMs: options.ttlMs === undefined ? DEFAULT_TTL_MS : options.ttlMs,
    pollIntervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    tool: tools.tool,
  });
  // The server's own tools/call, whose contexts now bind a call that became a task (continueAsTask finds it).
  const call = handlers.get(toolsCall.method);
  if (call === undefined) throw new Error('The modern handler table has no tools/call to extend with tasks');
  tools.wrapToolContext((base) => feature.context(base));
  handlers.set(toolsCall.method, feature.toolsCall(call));
  for (const [method, handler] of Object.entries(feature.handlers)) handlers.set(method, handler);
  setup.ending$.subscribe(() => {
    feature.close();
    if (ownStore) (store as InMemoryTaskStore).close();
  });
  return feature;
}

/** Wraps `tools/list` so that `execution.taskSupport` is listed only where it applies (see above). */
function taskSupportShownTo(list: RequestHandler, enabled: boolean): RequestHandler {
  // One stripped copy per cached page result, so a list still costs the same for every request.
  const stripped = new WeakMap<object, JsonObject>();
  return (params, request) => {
    const result = list(params, request);
    if (enabled && declaresTasks(request.modern?.envelope.clientCapabilities)) return result;
    if (!isJsonObject(result) || !Array.isArray(result['tools'])) return result;
    const tools = result['tools'] as readonly Tool[];
    if (!tools.some((tool) => tool.execution?.taskSupport !== undefined)) return result;
    let copy = stripped.get(result);
    if (copy === undefined) {
      copy = Object.freeze({ ...result, tools: tools.map(withoutTaskSupport) as unknown as JsonObject[] });
      stripped.set(result, copy);
    }
    return copy;
  };
}

function withoutTaskSupport(tool: Tool): Tool {
  if (tool.execution?.taskSupport === undefined) return tool;
  const { taskSupport: _support, ...execution } = tool.execution;
  const { execution: _execution, ...rest } = tool;
  return Object.keys(execution).length === 0 ? rest : { ...rest, execution };
}

/** The modern capabilities with the extension declared. */
export function withTasksExtension(capabilities: ServerCapabilities): ServerCapabilities {
  return { ...capabilities, extensions: { ...capabilities.extensions, ...TASKS_EXTENSION_CAPABILITY } };
}
