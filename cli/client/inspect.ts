/**
 * `rxmcp inspect <target>`: what a server is and offers: its info, protocol era and revision, capabilities,
 * instructions, tools (with their input schemas), resources, resource templates and prompts.
 */
import { MODERN_REVISIONS } from '../../core/protocol/versions.ts';
import type { Prompt, Resource, ResourceTemplate, Tool } from '../../core/protocol/index.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { UsageError, parseCommand } from '../args.ts';
import { clientCommandContext, connectionHelp, connectionOptions, withConnection } from './common.ts';
import { oneLine, parametersOf, table } from './render.ts';

export const inspectUsage = `usage: rxmcp inspect <target> [options]
       rxmcp inspect [options] -- <command> [args...]

Shows a server's info, protocol era and revision, capabilities, instructions, tools with their input schemas,
resources, resource templates and prompts: tables on a terminal, JSON with --json or when piped.

${connectionHelp}`;

const inspectCommand = { command: 'rxmcp inspect', usage: inspectUsage, options: connectionOptions, positionals: true, commandLine: true } as const;

export interface Inspection {
  readonly target: string;
  readonly era: 'legacy' | 'modern';
  readonly revision: string | undefined;
  readonly server: { readonly name: string; readonly version: string; readonly title?: string } | undefined;
  readonly capabilities: Record<string, unknown>;
  readonly instructions: string | undefined;
  readonly tools: readonly Tool[];
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplate[];
  readonly prompts: readonly Prompt[];
}

/** Runs `rxmcp inspect <argv>`; resolves with the exit code (undefined: help was asked for). */
export async function runInspect(argv: readonly string[], print: (text: string) => void): Promise<number | undefined> {
  const parsed = parseCommand(inspectCommand, argv);
  if (parsed.help) return undefined;
  const context = clientCommandContext(inspectCommand.command, parsed.values, parsed.positionals, parsed.commandLine);
  if (context.rest.length > 0) throw new UsageError(inspectCommand.command, `unexpected argument ${JSON.stringify(context.rest[0])}`);
  const inspection = await withConnection(context, ({ session }) => inspect(session, context.target.label));
  print(context.json ? JSON.stringify(inspection, null, 2) : inspectionText(inspection));
  return 0;
}

export async function inspect(session: ClientSession, target: string): Promise<Inspection> {
  const capabilities = (session.serverCapabilities ?? {}) as Record<string, unknown>;
  const raw = session.session;
  const [tools, resources, resourceTemplates, prompts] = await Promise.all([
    capabilities['tools'] === undefined ? [] : session.listTools(),
    capabilities['resources'] === undefined ? [] : session.listResources(),
    capabilities['resources'] === undefined ? [] : session.listResourceTemplates(),
    capabilities['prompts'] === undefined ? [] : session.listPrompts(),
  ]);
  const info = raw.peerInfo;
  return {
    target,
    era: raw.era,
    revision: raw.era === 'modern' ? (raw.revision ?? MODERN_REVISIONS[MODERN_REVISIONS.length - 1]) : raw.revision,
    server: info === undefined ? undefined : { name: info.name, version: info.version, ...(info.title === undefined ? {} : { title: info.title }) },
    capabilities,
    instructions: raw.instructions,
    tools,
    resources,
    resourceTemplates,
    prompts,
  };
}

export function inspectionText(inspection: Inspection): string {
  const { server } = inspection;
  const lines = [
    `server        ${server === undefined ? '(no info)' : `${server.name} ${server.version}${server.title === undefined ? '' : ` (${server.title})`}`}`,
    `target        ${inspection.target}`,
    `protocol      ${inspection.revision ?? '?'} (${inspection.era} era)`,
    `capabilities  ${capabilityList(inspection.capabilities) || '(none)'}`,
  ];
  if (inspection.instructions !== undefined) lines.push(`instructions  ${oneLine(inspection.instructions, 200)}`);
  const section = (title: string, count: number, body: string): void => {
    lines.push('', `${title} (${count})`);
    if (count > 0) lines.push(body);
  };
  section('tools', inspection.tools.length, table(['NAME', 'PARAMETERS', 'DESCRIPTION'], inspection.tools.map((tool) => [tool.name, parametersOf(tool.inputSchema), oneLine(tool.description ?? tool.title)])));
  section('resources', inspection.resources.length, table(['URI', 'NAME', 'MIME TYPE', 'DESCRIPTION'], inspection.resources.map((resource) => [resource.uri, resource.name, resource.mimeType ?? '', oneLine(resource.description)])));
  section(
    'resource templates',
    inspection.resourceTemplates.length,
    table(['URI TEMPLATE', 'NAME', 'MIME TYPE', 'DESCRIPTION'], inspection.resourceTemplates.map((template) => [template.uriTemplate, template.name, template.mimeType ?? '', oneLine(template.description)])),
  );
  section(
    'prompts',
    inspection.prompts.length,
    table(['NAME', 'ARGUMENTS', 'DESCRIPTION'], inspection.prompts.map((prompt) => [prompt.name, (prompt.arguments ?? []).map((argument) => `${argument.name}${argument.required === true ? '' : '?'}`).join(', '), oneLine(prompt.description ?? prompt.title)])),
  );
  return lines.join('\n');
}

/** `tools (listChanged), resources (subscribe, listChanged), logging`. */
function capabilityList(capabilities: Record<string, unknown>): string {
  return Object.entries(capabilities)
    .map(([name, value]) => {
      const flags = typeof value === 'object' && value !== null ? Object.entries(value).filter(([, flag]) => flag === true).map(([flag]) => flag) : [];
      return flags.length === 0 ? name : `${name} (${flags.join(', ')})`;
    })
    .join(', ');
}
