/** Lists everything one member serves, each kind only when the member declares it. */
import type { ClientSession } from '../client/session-api.ts';
import type { Prompt } from '../core/protocol/prompts.ts';
import type { Resource, ResourceTemplate } from '../core/protocol/resources.ts';
import type { Tool } from '../core/protocol/tools.ts';

export interface MemberCatalog {
  readonly tools: readonly Tool[];
  readonly prompts: readonly Prompt[];
  readonly resources: readonly Resource[];
  readonly templates: readonly ResourceTemplate[];
}

/** How many items of all kinds one member may bring (a peer is not trusted to be small). */
export const MAX_MEMBER_ITEMS = 10_000;

export async function listMemberCatalog(session: ClientSession): Promise<MemberCatalog> {
  const capabilities = session.serverCapabilities ?? {};
  const [tools, prompts, resources, templates] = await Promise.all([
    capabilities.tools === undefined ? [] : session.listTools(),
    capabilities.prompts === undefined ? [] : session.listPrompts(),
    capabilities.resources === undefined ? [] : session.listResources(),
    capabilities.resources === undefined ? [] : session.listResourceTemplates(),
  ]);
  const count = tools.length + prompts.length + resources.length + templates.length;
  if (count > MAX_MEMBER_ITEMS) throw new RangeError(`it lists ${count} items, more than the ${MAX_MEMBER_ITEMS} a member may bring`);
  return { tools, prompts, resources, templates };
}
