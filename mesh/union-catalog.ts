/**
 * The union catalog: every up member's tools, prompts, resources and templates, registered on the mesh's server
 * under the names the naming rule gives, each with a handler that forwards to its member under the item's own name.
 * `update()` recomputes the whole union and changes only what differs, in one burst, so the server's registries send
 * one `list_changed` per list however many members moved.
 */
import { type AccessRule, admits } from '../actors/features/access.ts';
import type { Completer } from '../actors/features/catalog.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import type { Prompt } from '../core/protocol/prompts.ts';
import type { Resource, ResourceTemplate } from '../core/protocol/resources.ts';
import type { Tool } from '../core/protocol/tools.ts';
import { type UriTemplate, parseUriTemplate } from '../core/uri-template/index.ts';
import type { McpServer, Registration } from '../server/server-api.ts';
import type { MemberCatalog } from './member-catalog.ts';
import type { MemberLink } from './member-link.ts';
import { memberTaskSupport, meshToolHandler } from './member-task.ts';
import { type NamedItem, exposedNames } from './naming.ts';
import type { MeshItem, MeshItemKind, MeshOptions } from './options.ts';

/** A member as the union sees it: its link and what it lists now. */
export interface UnionMember {
  readonly key: string;
  readonly link: MemberLink;
  readonly catalog: MemberCatalog;
}

interface Planned extends NamedItem {
  readonly link: MemberLink;
  /** The member's definition of the item, as listed. */
  readonly definition: object;
}

/** Where a URI the mesh serves is served: its member, and its URI there. */
export interface ResourceRoute {
  readonly link: MemberLink;
  readonly memberUri: string;
}

/** A template the mesh serves: its exposed form (to match), its member's (to expand), and its member. */
interface TemplateRoute {
  readonly exposed: UriTemplate;
  readonly own: UriTemplate;
  readonly link: MemberLink;
}

interface Registered {
  /** What decides whether the registration is still right: member, own name and definition. */
  readonly signature: string;
  readonly registration: Registration;
}

export class UnionCatalog {
  private readonly registered = new Map<string, Registered>();
  private readonly resourceRoutes = new Map<string, ResourceRoute>();
  private readonly templateRoutes = new Set<TemplateRoute>();

  constructor(
    private readonly server: McpServer,
    private readonly options: Pick<MeshOptions, 'naming' | 'visible' | 'requires' | 'onEvent'>,
  ) {}

  /** How many items the mesh serves now. */
  get size(): number {
    return this.registered.size;
  }

  update(members: readonly UnionMember[]): void {
    const planned: Planned[] = [];
    for (const { key, link, catalog } of [...members].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
      const add = (kind: MeshItemKind, name: string, definition: object): void => {
        planned.push({ memberKey: key, member: link.member, link, kind, name, definition });
      };
      for (const tool of catalog.tools) add('tool', tool.name, tool);
      for (const prompt of catalog.prompts) add('prompt', prompt.name, prompt);
      for (const resource of catalog.resources) add('resource', resource.uri, resource);
      for (const template of catalog.templates) add('resourceTemplate', template.uriTemplate, template);
    }
    const names = exposedNames(planned, this.options.naming ?? 'collisions');
    const wanted = new Map<string, { readonly item: Planned; readonly exposed: string; readonly signature: string }>();
    planned.forEach((item, index) => {
      const exposed = names[index] as string;
      const slot = `${item.kind === 'resourceTemplate' ? 'resource' : item.kind}\u0000${exposed}`;
      if (wanted.has(slot)) {
        this.skip(item, exposed, 'another member\'s item is served under the same name');
        return;
      }
      wanted.set(slot, { item, exposed, signature: `${item.memberKey}\u0000${item.kind}\u0000${item.name}\u0000${JSON.stringify(item.definition)}` });
    });
    for (const [slot, held] of this.registered) {
      if (wanted.get(slot)?.signature === held.signature) continue;
      held.registration.remove();
      this.registered.delete(slot);
    }
    for (const [slot, { item, exposed, signature }] of wanted) {
      if (this.registered.has(slot)) continue;
      try {
        this.registered.set(slot, { signature, registration: this.register(item, exposed) });
      } catch (error) {
        this.skip(item, exposed, error instanceof Error ? error.message : String(error));
      }
    }
  }

  /** The member serving `uri` (a resource's exposed URI, or one an exposed template matches), and its own URI there. */
  route(uri: string): ResourceRoute | undefined {
    const resource = this.resourceRoutes.get(uri);
    if (resource !== undefined) return resource;
    for (const template of this.templateRoutes) {
      const variables = template.exposed.match(uri);
      if (variables !== undefined) return { link: template.link, memberUri: template.own.expand(variables) };
    }
    return undefined;
  }

  clear(): void {
    for (const held of this.registered.values()) held.registration.remove();
    this.registered.clear();
  }

  private skip(item: Planned, exposed: string, reason: string): void {
    this.options.onEvent?.({ type: 'skipped', member: item.member, item: { kind: item.kind, name: item.name, exposedName: exposed }, reason });
  }

  /** Who may see and use the item: the operator's scopes and predicate, read at each request. */
  private accessOf(item: Planned, exposed: string): AccessRule | undefined {
    const described: MeshItem = { kind: item.kind, name: item.name, exposedName: exposed };
    const { visible, requires } = this.options;
    const scopes = requires?.(item.member, described);
    if (visible === undefined) return scopes;
    const member = item.member;
    return (auth) => admits(scopes, auth) && visible({ auth }, member, described);
  }

  private register(item: Planned, exposed: string): Registration {
    const { link, name } = item;
    const access = this.accessOf(item, exposed);
    const requires = access === undefined ? {} : { requires: access };
    switch (item.kind) {
      case 'tool': {
        // The tool's task support is the member's, where the member serves tasks (mesh/member-task.ts).
        const { name: _name, execution: _execution, ...tool } = item.definition as Tool;
        const support = memberTaskSupport(link, item.definition as Tool);
        const execution = support === 'forbidden' ? {} : { execution: { taskSupport: support } };
        return this.server.tool({ ...tool, inputSchema: tool.inputSchema as JsonObject, ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema as JsonObject }), ...execution, name: exposed, ...requires }, meshToolHandler(link, name, support));
      }
      case 'prompt': {
        const prompt = item.definition as Prompt;
        // Each argument the member completes is completed there, under the prompt's own name.
        const promptArguments = prompt.arguments?.map((argument) => {
          const complete = link.completer({ type: 'ref/prompt', name }, argument.name);
          return complete === undefined ? argument : { ...argument, complete };
        });
        return this.server.prompt({ ...prompt, ...(promptArguments === undefined ? {} : { arguments: promptArguments }), name: exposed, ...requires }, (args, context) =>
          link.forward(context, (session, options) => session.getPrompt(name, args, options)));
      }
      case 'resource': {
        const resource = item.definition as Resource;
        const registration = this.server.resource({ ...resource, uri: exposed, ...requires }, (_uri, context) =>
          link.forward(context, async (session, options) => renamedContents(await session.readResource(name, options), name, exposed)));
        this.resourceRoutes.set(exposed, { link, memberUri: name });
        return routedRegistration(registration, () => {
          if (this.resourceRoutes.get(exposed)?.link === link) this.resourceRoutes.delete(exposed);
        });
      }
      case 'resourceTemplate': {
        const template = item.definition as ResourceTemplate;
        const own = parseUriTemplate(name);
        const complete: Record<string, Completer> = {};
        for (const variable of own.variableNames) {
          const completer = link.completer({ type: 'ref/resource', uri: name }, variable);
          if (completer !== undefined) complete[variable] = completer;
        }
        const registration = this.server.resourceTemplate({ ...template, uriTemplate: exposed, complete, ...requires }, (uri, variables, context) => {
          // The member's URI is its own template expanded with the variables the mesh's matched: any naming rule inverts.
          const memberUri = own.expand(variables);
          return link.forward(context, async (session, options) => renamedContents(await session.readResource(memberUri, options), memberUri, uri));
        });
        const route: TemplateRoute = { exposed: parseUriTemplate(exposed), own, link };
        this.templateRoutes.add(route);
        return routedRegistration(registration, () => this.templateRoutes.delete(route));
      }
    }
  }
}

/** A registration that also forgets its route when removed. */
function routedRegistration(registration: Registration, forget: () => void): Registration {
  return {
    remove() {
      forget();
      registration.remove();
    },
  };
}

/** Contents the member labels with its own URI carry the URI the caller asked for. */
function renamedContents<R extends { readonly contents: readonly { readonly uri: string }[] }>(result: R, own: string, exposed: string): R {
  if (own === exposed) return result;
  return { ...result, contents: result.contents.map((content) => (content.uri === own ? { ...content, uri: exposed } : content)) };
}
