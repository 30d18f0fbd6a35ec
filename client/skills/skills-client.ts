/**
 * The host side of the skills extension (`io.modelcontextprotocol/skills`, SEP-2640): `createSkillsClient(session)`.
 *
 * - Lazy: `skills$()` pages `skills/list` only as far as its subscriber reads, and reads no file; nothing is
 *   fetched on connection, on listing or before `load`.
 * - Verified: `load(entry)` reads the skill's SKILL.md and, before handing it out, checks its size and digest
 *   against the entry (when the entry lists its files) and its YAML frontmatter field by field against the entry's
 *   frontmatter. Any mismatch throws `SkillVerificationError` naming the file and the difference; the skill is not
 *   loaded and nothing further is read. A loaded skill reads its other files on demand, each checked the same way,
 *   and refuses (without a request) any file its held entry does not list.
 * - Bounded: an entry over the extension's limits (512 files, 16 MiB) is refused before any read; a `dynamic`
 *   skill's reads stop at 16 MiB in total.
 */
import { Observable } from 'rxjs';
import { pages$ } from '../../actors/features/pager.ts';
import type { PromiseRequestOptions } from '../../actors/handler-types.ts';
import { decodeBase64url, utf8Bytes, utf8Text } from '../../core/bytes.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { ResourceContents } from '../../core/protocol/content.ts';
import type { ReadResourceResult } from '../../core/protocol/resources.ts';
import {
  type ReadDirectoryResult,
  SKILL_FILE,
  SKILL_LIMITS,
  SKILLS_EXTENSION,
  type Skill,
  type SkillResource,
  isSkill,
  resourcesDirectoryRead,
  skillsExtension,
  skillsGet,
  skillsList,
} from '../../core/protocol/skills.ts';
import { frontmatterDifference, readFrontmatter } from '../../core/skills/frontmatter.ts';
import { verifySkillFile } from '../../core/skills/manifest.ts';
import { extensionRequest, serverExtension } from '../extensions.ts';
import type { ClientSession } from '../session-api.ts';

/** A skill file that is not what its entry says (or not listed in it): the content was not used. */
export class SkillVerificationError extends Error {
  override readonly name = 'SkillVerificationError';
  constructor(
    /** The file concerned. */
    readonly uri: string,
    readonly reason: string,
  ) {
    super(`Skill verification failed: ${reason}`);
  }
}

/** A skill loaded after verification: its SKILL.md, and its other files on demand. */
export interface LoadedSkill {
  /** The entry it was loaded from and is held to. */
  readonly entry: Skill;
  /** The verified SKILL.md. */
  readonly markdown: string;
  /** Reads one of its files, by URI or by path relative to the skill's root, verified against the held entry. */
  readFile(uriOrPath: string, options?: PromiseRequestOptions): Promise<Uint8Array>;
  /** The same, as UTF-8 text. */
  readText(uriOrPath: string, options?: PromiseRequestOptions): Promise<string>;
}

export interface SkillsClient {
  /** Whether the server declared the extension (otherwise every method fails with `CapabilityNotNegotiated`). */
  readonly available: boolean;
  /** Whether the server declared `directoryRead`. */
  readonly directoryRead: boolean;
  /** The server's skill entries, paged lazily. Entries that are not well-formed are dropped (never loaded). */
  skills$(): Observable<Skill>;
  listSkills(): Promise<Skill[]>;
  /** The current entry of one skill, by the URI of its SKILL.md. */
  getSkill(uri: string, options?: PromiseRequestOptions): Promise<Skill>;
  /** Loads a skill (see the module comment): the only path that reads its files. */
  load(entry: Skill, options?: PromiseRequestOptions): Promise<LoadedSkill>;
  /** A directory's direct children (`resources/directory/read`), one page. */
  readDirectory(uri: string, cursor?: string, options?: PromiseRequestOptions): Promise<ReadDirectoryResult>;
}

/** The skills host API over a connected session. */
export function createSkillsClient(session: ClientSession): SkillsClient {
  const settings = () => serverExtension(session, SKILLS_EXTENSION);
  const readBytes = async (uri: string, options: PromiseRequestOptions | undefined): Promise<Uint8Array> => {
    const result: ReadResourceResult = await session.readResource(uri, options);
    const contents = result.contents.find((item) => item.uri === uri) ?? (result.contents.length === 1 ? result.contents[0] : undefined);
    if (contents === undefined) throw new SkillVerificationError(uri, `the server's answer to resources/read holds no contents for ${uri}`);
    return bytesOf(contents);
  };
  return {
    get available() {
      return settings() !== undefined;
    },
    get directoryRead() {
      return settings()?.['directoryRead'] === true;
    },
    skills$() {
      return new Observable<Skill>((subscriber) =>
        pages$<unknown>((cursor) => extensionRequest(session, skillsExtension, skillsList, cursor === undefined ? {} : { cursor }) as unknown as Promise<JsonObject>, 'skills')
          .subscribe({ next: (entry) => (isSkill(entry) ? subscriber.next(entry) : undefined), error: (error: unknown) => subscriber.error(error), complete: () => subscriber.complete() }));
    },
    listSkills() {
      return new Promise<Skill[]>((resolve, reject) => {
        const all: Skill[] = [];
        this.skills$().subscribe({ next: (skill) => all.push(skill), error: reject, complete: () => resolve(all) });
      });
    },
    async getSkill(uri, options) {
      return (await extensionRequest(session, skillsExtension, skillsGet, { uri }, options)).skill;
    },
    async load(entry, options) {
      if (!isSkill(entry) || !entry.uri.endsWith(`/${SKILL_FILE}`)) throw new SkillVerificationError(String((entry as { uri?: unknown }).uri), 'the entry is not a well-formed skill entry');
      if (settings() === undefined) await extensionRequest(session, skillsExtension, skillsGet, { uri: entry.uri }, options); // fails: not negotiated
      checkLimits(entry);
      const root = entry.uri.slice(0, -SKILL_FILE.length);
      const listed = entry.resources === 'dynamic' ? undefined : new Map(entry.resources.map((resource) => [resource.uri, resource]));
      let dynamicBytes = 0;
      const read = async (uri: string, readOptions: PromiseRequestOptions | undefined): Promise<Uint8Array> => {
        if (!uri.startsWith(root)) throw new SkillVerificationError(uri, `${uri} is not a file of the skill at ${entry.uri}`);
        if (listed === undefined) {
          const bytes = await readBytes(uri, readOptions);
          dynamicBytes += bytes.byteLength;
          if (dynamicBytes > SKILL_LIMITS.maxTotalBytes) throw new SkillVerificationError(uri, `the dynamic skill ${entry.uri} went over ${SKILL_LIMITS.maxTotalBytes} bytes`);
          return bytes;
        }
        const resource = listed.get(uri);
        // An unlisted file is a change to the skill: refused without asking the server.
        if (resource === undefined) throw new SkillVerificationError(uri, `${uri} is not listed in the entry of ${entry.uri}`);
        return verified(resource, await readBytes(uri, readOptions));
      };
      const markdownBytes = await read(entry.uri, options);
      const markdown = utf8Text(markdownBytes);
      const frontmatter = readFrontmatter(markdown);
      if (!frontmatter.ok) throw new SkillVerificationError(entry.uri, `${entry.uri}: ${frontmatter.reason}`);
      const differs = frontmatterDifference(frontmatter.frontmatter, entry.frontmatter as JsonObject);
      if (differs !== undefined) throw new SkillVerificationError(entry.uri, `the frontmatter of ${entry.uri} differs from its entry in "${differs}"`);
      const resolve = (uriOrPath: string): string => (/^[a-z][a-z0-9+.-]*:/i.test(uriOrPath) ? uriOrPath : `${root}${uriOrPath.replace(/^\.?\//, '')}`);
      return {
        entry,
        markdown,
        readFile: (uriOrPath, readOptions) => read(resolve(uriOrPath), readOptions),
        readText: async (uriOrPath, readOptions) => utf8Text(await read(resolve(uriOrPath), readOptions)),
      };
    },
    readDirectory(uri, cursor, options) {
      if (settings() !== undefined && settings()?.['directoryRead'] !== true) {
        return Promise.reject(new TypeError(`The server did not declare directoryRead for ${SKILLS_EXTENSION}: resources/directory/read must not be called`));
      }
      return extensionRequest(session, skillsExtension, resourcesDirectoryRead, cursor === undefined ? { uri } : { uri, cursor }, options);
    },
  };
}

function verified(resource: SkillResource, bytes: Uint8Array): Uint8Array {
  const problem = verifySkillFile(resource, bytes);
  if (problem !== undefined) throw new SkillVerificationError(resource.uri, problem);
  return bytes;
}

function checkLimits(entry: Skill): void {
  if (entry.resources === 'dynamic') return;
  if (entry.resources.length > SKILL_LIMITS.maxFiles) {
    throw new SkillVerificationError(entry.uri, `${entry.uri} lists ${entry.resources.length} files, over the extension's limit of ${SKILL_LIMITS.maxFiles}`);
  }
  const total = entry.resources.reduce((sum, resource) => sum + resource.size, 0);
  if (total > SKILL_LIMITS.maxTotalBytes) throw new SkillVerificationError(entry.uri, `${entry.uri} holds ${total} bytes, over the extension's limit of ${SKILL_LIMITS.maxTotalBytes}`);
}

/** The raw bytes of one resource contents item (text as UTF-8; a blob decoded from base64). */
function bytesOf(contents: ResourceContents): Uint8Array {
  if ('text' in contents && typeof contents.text === 'string') return utf8Bytes(contents.text);
  const blob = (contents as { blob?: unknown }).blob;
  const bytes = typeof blob === 'string' ? decodeBase64url(blob.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')) : undefined;
  if (bytes === undefined) throw new SkillVerificationError(contents.uri, `${contents.uri} came without readable text or base64 content`);
  return bytes;
}
