/**
 * The 2025-11-25 tasks of a server built by `createServer` (`ServerOptions.tasks`): the feature, with its store (an
 * in-memory one unless given) on the sessions' clock. It serves the legacy era only (see modern-tasks.ts for the
 * extension of the modern era).
 */
import { type TasksFeature, createTasksFeature } from '../actors/features/tasks-feature.ts';
import { InMemoryTaskStore } from './in-memory-task-store.ts';
import type { Clock } from '../core/clock.ts';
import type { McpSession } from '../session/session-core.ts';
import type { ServerTaskOptions } from './server-api.ts';

export function createLegacyTasks(options: ServerTaskOptions, clock: Clock | undefined, pageSize: number): TasksFeature {
  const store = options.store ?? new InMemoryTaskStore({ pageSize, ...(clock === undefined ? {} : { clock }) });
  return createTasksFeature({
    store,
    // A task outlives the request that created it: it reaches its session directly.
    peer: (session) => session as McpSession,
    ...(options.defaultTtlMs === undefined ? {} : { defaultTtlMs: options.defaultTtlMs }),
    ...(options.maxTtlMs === undefined ? {} : { maxTtlMs: options.maxTtlMs }),
    ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
  });
}
