/**
 * `subscriptions/listen` (2026-07-28): the one place a modern client hears about changes. A listen request
 * stays open; the server acknowledges what it will honour, then sends each change the filter asked for,
 * tagged with the subscription's id (the listen request's id), until the client cancels or the server ends
 * the stream with a complete result. Progress and logs never travel here.
 *
 * Changes come from a stream of server changes, so whatever feeds that stream (this process's catalog, or a
 * bus carrying other processes' changes) reaches every listener the same way.
 *
 * With the tasks extension, a filter may also name `taskIds`: the listen then carries `notifications/tasks`
 * for those of the tasks its caller owns (and the progress and log messages of their handlers), and the
 * acknowledgement lists the ids agreed. Naming tasks without declaring the extension is -32021.
 */
import type { Observable, Subscription } from 'rxjs';
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { ServerCapabilities } from '../../core/protocol/capabilities.ts';
import { MetaKey, type SubscriptionFilter, readSubscriptionFilter } from '../../core/protocol/modern.ts';
import { isJsonObject } from '../../core/protocol/guards.ts';
import type { RequestContext, RequestHandler } from '../handler-types.ts';
import type { AuthInfo } from '../../core/auth.ts';

import type { ServerChange } from '../../core/server-change.ts';

export type { ServerChange };

export interface ListenRuntime {
  readonly changes$: Observable<ServerChange>;
  /**
   * Whether the caller (`auth`) may hear of a change, asked as each change is sent and of each resource the filter
   * names (one it may not read is not agreed). Absent: everyone may.
   */
  readonly mayHear?: (change: ServerChange, auth: AuthInfo | undefined) => boolean;
  /** Emits when the server shuts down: open listens end with a complete result. */
  readonly ending$: Observable<unknown>;
  readonly capabilities: () => ServerCapabilities;
  /** The tasks extension, when the server enables it (see modern-tasks-feature.ts). */
  readonly tasks?: {
    watch(request: RequestContext, taskIds: readonly string[]): Promise<{ readonly taskIds: readonly string[]; readonly notices$: Notices }>;
  };
}

type Notices = Observable<{ readonly method: string; readonly params: JsonObject }>;

/** What of the filter this server can deliver: it never promises notifications it will not send. */
function honoured(filter: SubscriptionFilter, capabilities: ServerCapabilities, mayRead: (uri: string) => boolean): SubscriptionFilter {
  const uris = filter.resourceSubscriptions?.filter(mayRead);
  return {
    ...(filter.toolsListChanged === true && capabilities.tools?.listChanged === true ? { toolsListChanged: true } : {}),
    ...(filter.promptsListChanged === true && capabilities.prompts?.listChanged === true ? { promptsListChanged: true } : {}),
    ...(filter.resourcesListChanged === true && capabilities.resources?.listChanged === true ? { resourcesListChanged: true } : {}),
    ...(uris !== undefined && uris.length > 0 && capabilities.resources?.subscribe === true ? { resourceSubscriptions: [...new Set(uris)] } : {}),
  };
}

/** The notification a change becomes for this filter, if the filter asked for it. */
function notificationFor(change: ServerChange, filter: SubscriptionFilter, uris: ReadonlySet<string>): string | undefined {
  switch (change.type) {
    case 'tools':
      return filter.toolsListChanged === true ? 'notifications/tools/list_changed' : undefined;
    case 'prompts':
      return filter.promptsListChanged === true ? 'notifications/prompts/list_changed' : undefined;
    case 'resources':
      return filter.resourcesListChanged === true ? 'notifications/resources/list_changed' : undefined;
    case 'resource-updated':
      return uris.has(change.uri) ? 'notifications/resources/updated' : undefined;
  }
}

export function listenHandler(runtime: ListenRuntime, maxResourceSubscriptions: number): RequestHandler {
  return (params, request) => {
    const filter = readSubscriptionFilter(params);
    if (filter === undefined) throw new WireError(ErrorCode.InvalidParams, 'Invalid params: subscriptions/listen needs a "notifications" filter object');
    if ((filter.resourceSubscriptions?.length ?? 0) > maxResourceSubscriptions) {
      throw new WireError(ErrorCode.InvalidParams, `Invalid params: a listen may name at most ${maxResourceSubscriptions} resources`);
    }
    if ((filter.taskIds?.length ?? 0) > maxResourceSubscriptions) {
      throw new WireError(ErrorCode.InvalidParams, `Invalid params: a listen may name at most ${maxResourceSubscriptions} tasks`);
    }
    const mayHear = runtime.mayHear;
    const agreed = honoured(filter, runtime.capabilities(), mayHear === undefined ? () => true : (uri) => mayHear({ type: 'resource-updated', uri }, request.auth));
    const taskIds = filter.taskIds;
    // A server without the extension cannot deliver task notifications: it leaves them out of what it agrees to.
    if (taskIds === undefined || runtime.tasks === undefined) return acknowledge(runtime, request, agreed, undefined);
    return runtime.tasks.watch(request, taskIds).then((watch) =>
      acknowledge(runtime, request, watch.taskIds.length === 0 ? agreed : { ...agreed, taskIds: watch.taskIds }, watch.taskIds.length === 0 ? undefined : watch.notices$),
    );
  };
}

function acknowledge(runtime: ListenRuntime, request: RequestContext, agreed: SubscriptionFilter, notices$: Notices | undefined): Promise<JsonObject> {
  const meta: JsonObject = { [MetaKey.subscriptionId]: request.id };
  request.notify('notifications/subscriptions/acknowledged', { notifications: agreed as JsonObject, _meta: meta });
  return serveListen(runtime, request, agreed, meta, notices$);
}

function serveListen(runtime: ListenRuntime, request: RequestContext, filter: SubscriptionFilter, meta: JsonObject, notices$: Notices | undefined): Promise<JsonObject> {
  const uris = new Set(filter.resourceSubscriptions);
  return new Promise((resolve) => {
    const changes = runtime.changes$.subscribe((change) => {
      const method = notificationFor(change, filter, uris);
      // Authorized as it is sent: a resource's rule may have changed since the listen began.
      if (method === undefined || runtime.mayHear?.(change, request.auth) === false) return;
      request.notify(method, change.type === 'resource-updated' ? { uri: change.uri, _meta: meta } : { _meta: meta });
    });
    const tasks: Subscription | undefined = notices$?.subscribe((notice) => {
      const own = notice.params['_meta'];
      request.notify(notice.method, { ...notice.params, _meta: { ...(isJsonObject(own) ? own : undefined), ...meta } });
    });
    const end = (): void => {
      changes.unsubscribe();
      tasks?.unsubscribe();
      ending.unsubscribe();
      request.signal.removeEventListener('abort', end);
      request.shutdown?.removeEventListener('abort', complete);
    };
    // The graceful end, when the server or this connection shuts down: a complete result naming the subscription.
    const complete = (): void => {
      end();
      resolve({ _meta: meta });
    };
    const ending = runtime.ending$.subscribe(complete);
    // A listen cancelled while its tasks were looked up never hears the abort event: it ends now.
    if (request.signal.aborted) return end();
    request.signal.addEventListener('abort', end, { once: true });
    if (request.shutdown?.aborted === true) complete();
    else request.shutdown?.addEventListener('abort', complete, { once: true });
  });
}
