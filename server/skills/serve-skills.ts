/**
 * The skills extension (`io.modelcontextprotocol/skills`, SEP-2640) served from a skills directory:
 * `createServer({ extensions: [skills(directory)] })`. It declares the extension (with `directoryRead` when
 * asked), answers `skills/list` (pages of whole entries), `skills/get` (-32602 for a URI that is not a skill's
 * SKILL.md) and, with `directoryRead`, `resources/directory/read` (a folder's direct children, subfolders as
 * `inode/directory`; -32602 for anything that is not a folder), and registers every file as a resource read with
 * `resources/read` (SKILL.md as `text/markdown`, named and described by its frontmatter). In the modern era the
 * results carry the server's caching hints like `resources/read`.
 */
import { decodeCursor, encodeCursor } from '../../core/catalog/pagination.ts';
import { encodeBase64url } from '../../core/bytes.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { ResourceContents } from '../../core/protocol/content.ts';
import { type SkillsSettings, skillsExtension } from '../../core/protocol/skills.ts';
import type { ServerExtension } from '../server-api.ts';
import type { SkillDirectory, SkillFile } from './skill-directory.ts';

export interface SkillsOptions extends SkillsSettings {
  /** Entries per `skills/list` page and children per `resources/directory/read` page (default 50). */
  readonly pageSize?: number;
}

function invalidParams(message: string): WireError {
  return new WireError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}

/** One page of `items` from the offset `cursor` names (a cursor of another list, or forged, is -32602). */
function page<T>(items: readonly T[], list: string, cursor: unknown, size: number): { readonly items: readonly T[]; readonly nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined) {
    const position = decodeCursor(cursor, list);
    if (position === undefined || position.offset > items.length) throw invalidParams('the cursor is not one this server issued for this list');
    offset = position.offset;
  }
  const end = offset + size;
  return end < items.length ? { items: items.slice(offset, end), nextCursor: encodeCursor({ list, revision: 0, offset: end }) } : { items: items.slice(offset) };
}

/** The file's contents as `resources/read` returns them: text when its type is textual and it is UTF-8, else base64. */
function contentsOf(file: SkillFile): ResourceContents {
  const mimeType = file.resource.mimeType ?? 'application/octet-stream';
  if (/^text\/|^application\/(json|yaml|xml)$|\+xml$/.test(mimeType)) {
    try {
      return { uri: file.uri, mimeType, text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(file.bytes) };
    } catch {
      // Not UTF-8 after all: its exact bytes go as a blob.
    }
  }
  const base64 = encodeBase64url(file.bytes).replace(/-/g, '+').replace(/_/g, '/');
  return { uri: file.uri, mimeType, blob: base64.padEnd(Math.ceil(base64.length / 4) * 4, '=') };
}

/** The skills extension over `directory`, for `ServerOptions.extensions`. */
export function skills(directory: SkillDirectory, options: SkillsOptions = {}): ServerExtension {
  const pageSize = options.pageSize ?? 50;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw new TypeError('skills: pageSize must be a positive integer');
  const folders = new Map<string, number>();
  const listOf = (folder: string): string => {
    let index = folders.get(folder);
    if (index === undefined) folders.set(folder, (index = folders.size));
    return `dir-${index}`;
  };
  const handlers: Record<string, ServerExtension['handlers'][string]> = {
    'skills/list': (params) => {
      const { items, nextCursor } = page(directory.skills, 'skills', params?.['cursor'], pageSize);
      return nextCursor === undefined ? { skills: items } : { skills: items, nextCursor };
    },
    'skills/get': (params) => {
      const uri = params?.['uri'] as string;
      const skill = directory.skill(uri);
      if (skill === undefined) throw new WireError(ErrorCode.InvalidParams, `Invalid params: no skill is served at ${uri}`, { data: { uri } });
      return { skill };
    },
  };
  if (options.directoryRead === true) {
    handlers['resources/directory/read'] = (params) => {
      const uri = params?.['uri'] as string;
      const children = directory.folder(uri);
      if (children === undefined) throw new WireError(ErrorCode.InvalidParams, `Invalid params: ${uri} is not a directory resource`, { data: { uri } });
      const { items, nextCursor } = page(children, listOf(uri), params?.['cursor'], pageSize);
      return nextCursor === undefined ? { resources: items } : { resources: items, nextCursor };
    };
  }
  const settings: JsonObject = options.directoryRead === true ? { directoryRead: true } : {};
  return {
    definition: skillsExtension,
    settings,
    handlers,
    attach(server) {
      for (const file of directory.allFiles()) {
        const contents = [contentsOf(file)];
        server.resource(file.resource, () => contents);
      }
    },
  };
}
