/** The member servers the mesh specs join: two with a colliding tool and resource, and a third that joins later. */
import { z } from 'zod';
import { progress } from '../../actors/progress.ts';
import type { McpServer } from '../../server/server-api.ts';
import { memberServer } from './mesh-fixture.ts';

/** What a member's handlers saw: calls that started, and calls whose signal aborted. */
export interface Seen {
  started: number;
  aborted: number;
}

/** A tool that waits until cancelled (counting both), after one progress report. */
function waitTool(server: McpServer, seen: Seen): void {
  server.tool({ name: 'wait', inputSchema: z.object({}) }, async function* (_args, ctx) {
    seen.started++;
    yield progress({ progress: 1, message: 'waiting' });
    await new Promise<void>((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        seen.aborted++;
        resolve();
      }, { once: true });
    });
    return 'not reached';
  });
}

export function alphaServer(seen: Seen = { started: 0, aborted: 0 }): McpServer {
  const server = memberServer('alpha-server');
  server.tool({ name: 'echo', inputSchema: z.object({ text: z.string() }) }, ({ text }) => `alpha: ${text}`);
  server.tool({ name: 'status' }, () => 'alpha ok');
  waitTool(server, seen);
  server.prompt({ name: 'greet', arguments: [{ name: 'who', required: true, complete: (value) => ['Ada', 'Alan', 'Grace'].filter((who) => who.startsWith(value)) }] }, ({ who }) => `Hello ${who} from alpha`);
  server.resource({ uri: 'memo://alpha/notes', name: 'notes', mimeType: 'text/plain' }, () => 'alpha notes');
  server.resource({ uri: 'memo://shared', name: 'shared', mimeType: 'text/plain' }, () => 'alpha shared');
  server.resourceTemplate({ uriTemplate: 'memo://alpha/days/{day}', name: 'day', complete: { day: (value) => ['monday', 'tuesday'].filter((day) => day.startsWith(value)) } }, (_uri, { day }) => `alpha ${String(day)}`);
  return server;
}

export function betaServer(seen: Seen = { started: 0, aborted: 0 }): McpServer {
  const server = memberServer('beta-server');
  server.tool({ name: 'status' }, () => 'beta ok');
  server.tool({ name: 'count' }, async function* () {
    yield progress({ progress: 1, total: 2 });
    yield progress({ progress: 2, total: 2 });
    return 'counted';
  });
  server.tool({ name: 'hold', inputSchema: z.object({}) }, async function* (_args, ctx) {
    seen.started++;
    yield progress({ progress: 1 });
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => {
      seen.aborted++;
      resolve();
    }, { once: true }));
    return 'not reached';
  });
  server.resource({ uri: 'memo://shared', name: 'shared', mimeType: 'text/plain' }, () => 'beta shared');
  return server;
}

export function gammaServer(): McpServer {
  const server = memberServer('gamma-server');
  server.tool({ name: 'echo', inputSchema: z.object({ text: z.string() }) }, ({ text }) => `gamma: ${text}`);
  return server;
}
