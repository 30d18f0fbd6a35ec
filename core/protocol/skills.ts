/**
 * The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): wire shapes, guards and the extension's
 * declaration. A server that declares it serves Agent Skills as resources (`skill://<skill-path>/<file-path>`),
 * enumerates them with `skills/list` (each entry a complete manifest: frontmatter, and every file with its SHA-256
 * digest and size), answers `skills/get` for one skill by the URI of its SKILL.md, and, when its settings say
 * `directoryRead: true`, lists a directory's direct children with `resources/directory/read`. Clients need not
 * declare the extension. Pure types and functions only; shapes are type aliases so they are assignable to
 * `JsonObject` (see pagination.ts).
 */
import type { JsonObject } from '../jsonrpc.ts';
import type { Resource } from './resources.ts';
import type { PaginatedParams } from './pagination.ts';
import { request } from './declarations/declaration.ts';
import { defineExtension } from './extensions.ts';
import { isJsonObject } from './guards.ts';

export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** The `_meta` key prefix this extension reserves on skill resources. */
export const SKILLS_META_PREFIX = 'io.modelcontextprotocol.skills/';

/** The manifest file every skill has at its root. */
export const SKILL_FILE = 'SKILL.md';

/** The mimeType of a directory resource. */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

/** Limits every host must accept, per skill: files (SKILL.md included) and total bytes. */
export const SKILL_LIMITS = Object.freeze({ maxFiles: 512, maxTotalBytes: 16 * 1024 * 1024 });

/** The extension's settings. */
export interface SkillsSettings {
  /** The server implements `resources/directory/read`. */
  readonly directoryRead?: boolean;
}

/** One file of a skill: its URI, the SHA-256 of its raw bytes (`sha256:<64 lowercase hex>`) and their count. */
export type SkillResource = {
  readonly uri: string;
  readonly digest: string;
  readonly size: number;
};

/** A skill's SKILL.md frontmatter, verbatim as JSON. */
export type SkillFrontmatter = {
  readonly name: string;
  readonly description: string;
  readonly [field: string]: unknown;
};

/** The entry of one skill, the same in `skills/list` and `skills/get`. */
export type Skill = {
  /** The URI of its SKILL.md. */
  readonly uri: string;
  readonly frontmatter: SkillFrontmatter;
  /** Every file, each once, SKILL.md included; or `"dynamic"` when no stable digests can be published. */
  readonly resources: readonly SkillResource[] | 'dynamic';
};

export type ListSkillsResult = {
  readonly skills: readonly Skill[];
  readonly nextCursor?: string;
  readonly _meta?: JsonObject;
};

export type GetSkillParams = {
  readonly uri: string;
  readonly _meta?: JsonObject;
};

export type GetSkillResult = {
  readonly skill: Skill;
  readonly _meta?: JsonObject;
};

export type ReadDirectoryParams = {
  readonly uri: string;
  readonly cursor?: string;
  readonly _meta?: JsonObject;
};

export type ReadDirectoryResult = {
  /** The directory's direct children; subdirectories carry `mimeType: "inode/directory"`. */
  readonly resources: readonly Resource[];
  readonly nextCursor?: string;
  readonly _meta?: JsonObject;
};

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export function isSkillResource(value: unknown): value is SkillResource {
  return isJsonObject(value) && typeof value['uri'] === 'string' && typeof value['digest'] === 'string' && DIGEST.test(value['digest'])
    && typeof value['size'] === 'number' && Number.isSafeInteger(value['size']) && value['size'] >= 0;
}

/** A well-formed entry (the shape only: whether it is true to its files is the client's verification). */
export function isSkill(value: unknown): value is Skill {
  if (!isJsonObject(value) || typeof value['uri'] !== 'string') return false;
  const frontmatter = value['frontmatter'];
  if (!isJsonObject(frontmatter) || typeof frontmatter['name'] !== 'string' || typeof frontmatter['description'] !== 'string') return false;
  const resources = value['resources'];
  return resources === 'dynamic' || (Array.isArray(resources) && resources.every(isSkillResource));
}

export function isListSkillsResult(value: unknown): value is ListSkillsResult {
  return isJsonObject(value) && Array.isArray(value['skills']) && (value['nextCursor'] === undefined || typeof value['nextCursor'] === 'string');
}

export function isGetSkillResult(value: unknown): value is GetSkillResult {
  return isJsonObject(value) && isSkill(value['skill']);
}

function isUriParams(value: unknown): value is { readonly uri: string } {
  return isJsonObject(value) && typeof value['uri'] === 'string';
}

const client = { sender: 'client', extension: SKILLS_EXTENSION } as const;
// Extensions arrive with the `extensions` capability; the suite's clients use them from 2025-06-18 on.
const legacy = { sender: 'client', since: '2025-06-18' } as const;

export const skillsList = request<PaginatedParams | undefined, ListSkillsResult>('skills/list', {
  legacy,
  modern: { ...client, cacheable: { list: 'skills' } },
  result: isListSkillsResult,
});

export const skillsGet = request<GetSkillParams, GetSkillResult>('skills/get', {
  legacy,
  modern: { ...client, cacheable: { list: 'skills' } },
  params: isUriParams,
  result: isGetSkillResult,
});

export const resourcesDirectoryRead = request<ReadDirectoryParams, ReadDirectoryResult>('resources/directory/read', {
  legacy,
  modern: client,
  params: isUriParams,
});

/** The skills extension: `skills/list`, `skills/get` and (with `directoryRead`) `resources/directory/read`. */
export const skillsExtension = defineExtension({ id: SKILLS_EXTENSION, methods: [skillsList, skillsGet, resourcesDirectoryRead] });
