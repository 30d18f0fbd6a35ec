/**
 * The naming rule of the union catalog: from every member's item names, the name each item is served under. Pure,
 * so the whole catalog is renamed at once whenever a member joins or leaves: a name that stops colliding goes back
 * to its plain form.
 */
import type { MeshItemKind, MeshMember, MeshNaming } from './options.ts';

/** `<binding>__<name>` for tools and prompts; `mesh://<binding>/<uri>` for resources and templates. */
export function prefixedName(member: MeshMember, name: string, kind: MeshItemKind): string {
  return kind === 'tool' || kind === 'prompt' ? `${member.binding}__${name}` : `mesh://${member.binding}/${name}`;
}

/** One member's item before naming. */
export interface NamedItem {
  readonly memberKey: string;
  readonly member: MeshMember;
  readonly kind: MeshItemKind;
  readonly name: string;
}

/** The kinds that share one namespace on the wire: resources and templates are both addressed by URI. */
function namespaceOf(kind: MeshItemKind): string {
  return kind === 'resourceTemplate' ? 'resource' : kind;
}

/** The exposed name of each item, in the order given. */
export function exposedNames(items: readonly NamedItem[], naming: MeshNaming): string[] {
  const owners = new Map<string, Set<string>>();
  for (const item of items) {
    const key = `${namespaceOf(item.kind)}\u0000${item.name}`;
    let set = owners.get(key);
    if (set === undefined) owners.set(key, (set = new Set()));
    set.add(item.memberKey);
  }
  return items.map((item) => {
    const colliding = (owners.get(`${namespaceOf(item.kind)}\u0000${item.name}`)?.size ?? 0) > 1;
    if (typeof naming === 'function') return naming(item.member, item.name, item.kind, colliding);
    return naming === 'always' || colliding ? prefixedName(item.member, item.name, item.kind) : item.name;
  });
}
