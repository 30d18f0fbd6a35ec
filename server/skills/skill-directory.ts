/**
 * A skills directory: a tree of files in which every folder holding a SKILL.md is a skill (skills may nest), built
 * once from a map of paths to contents. Everything a server says about it is computed here at construction: each
 * skill's entry (its frontmatter as JSON, every file under its folder with its digest and size, nested skills'
 * files included, as the extension asks), each file's resource, each folder's direct children. A directory that
 * breaks the extension's rules is refused, with the reason, rather than served: a SKILL.md without frontmatter or
 * whose name differs from its folder, a name outside the Agent Skills naming rules, a skill over 512 files or
 * 16 MiB, a path with empty, `.` or `..` segments.
 */
import { utf8Bytes } from '../../core/bytes.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { Resource } from '../../core/protocol/resources.ts';
import { DIRECTORY_MIME_TYPE, SKILL_FILE, SKILL_LIMITS, SKILLS_META_PREFIX, type Skill, type SkillFrontmatter } from '../../core/protocol/skills.ts';
import { readFrontmatter } from '../../core/skills/frontmatter.ts';
import { skillResource } from '../../core/skills/manifest.ts';

/** Files by their path from the directory's root (`/`-separated, e.g. `pdf-processing/references/FORMS.md`). */
export type SkillFiles = Readonly<Record<string, string | Uint8Array>>;

/** One file as a server serves it. */
export interface SkillFile {
  readonly uri: string;
  readonly bytes: Uint8Array;
  /** Its resource (name, mimeType, size; for a SKILL.md the frontmatter's name and description). */
  readonly resource: Resource;
}

// The Agent Skills naming rules: 1-64 lowercase letters, digits and hyphens, no hyphen first, last or doubled.
const SKILL_NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
// The first segment is the URI's authority: an RFC 3986 reg-name without percent-encoding.
const REG_NAME = /^[A-Za-z0-9\-._~!$&'()*+,;=]+$/;
// No separators, no query or fragment marks, no control characters (checked apart: a regex may not name them).
const SEGMENT = /^[^/\\?#]+$/;
const hasControl = (text: string): boolean => [...text].some((char) => (char.codePointAt(0) as number) < 0x20 || char === '\u007f');

const MIME_TYPES: Readonly<Record<string, string>> = {
  md: 'text/markdown', markdown: 'text/markdown', txt: 'text/plain', json: 'application/json', yaml: 'application/yaml',
  yml: 'application/yaml', py: 'text/x-python', js: 'text/javascript', mjs: 'text/javascript', ts: 'text/plain',
  sh: 'text/x-shellscript', html: 'text/html', css: 'text/css', csv: 'text/csv', xml: 'application/xml',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', svg: 'image/svg+xml', pdf: 'application/pdf',
};

function mimeTypeOf(path: string): string {
  const dot = path.lastIndexOf('.');
  return (dot < 0 ? undefined : MIME_TYPES[path.slice(dot + 1).toLowerCase()]) ?? 'application/octet-stream';
}

export class SkillDirectory {
  /** Every skill's entry, ordered by URI. */
  readonly skills: readonly Skill[];
  private readonly bySkillUri = new Map<string, Skill>();
  private readonly files = new Map<string, SkillFile>();
  /** Folder URI -> its direct children's resources (files and subfolders), ordered by URI. */
  private readonly folders = new Map<string, readonly Resource[]>();

  constructor(files: SkillFiles, readonly scheme = 'skill') {
    const paths = Object.keys(files).sort();
    const children = new Map<string, Map<string, Resource>>();
    const frontmatters = new Map<string, SkillFrontmatter>();
    for (const path of paths) {
      const segments = path.split('/');
      if (hasControl(path) || !segments.every((segment) => SEGMENT.test(segment) && segment !== '.' && segment !== '..')) throw new TypeError(`Skill file path "${path}" is not a plain relative path`);
      if (segments.length < 2) throw new TypeError(`Skill file "${path}" is outside any skill folder`);
      const content = files[path] as string | Uint8Array;
      const bytes = typeof content === 'string' ? utf8Bytes(content) : content;
      const uri = this.uriOf(path);
      const name = segments.at(-1) as string;
      let resource: Resource = { uri, name, mimeType: mimeTypeOf(name), size: bytes.byteLength };
      if (name === SKILL_FILE) {
        const frontmatter = skillFrontmatter(path, bytes, segments.at(-2) as string);
        frontmatters.set(segments.slice(0, -1).join('/'), frontmatter);
        resource = skillFileResource(uri, frontmatter, bytes.byteLength);
      }
      this.files.set(uri, { uri, bytes, resource });
      // Every folder on the way down lists the next level.
      for (let depth = 1; depth < segments.length; depth++) {
        const folder = this.uriOf(segments.slice(0, depth).join('/'));
        const child = depth === segments.length - 1 ? resource : folderResource(this.uriOf(segments.slice(0, depth + 1).join('/')), segments[depth] as string);
        let listed = children.get(folder);
        if (listed === undefined) children.set(folder, (listed = new Map()));
        listed.set(child.uri, child);
      }
    }
    for (const [folder, listed] of children) this.folders.set(folder, [...listed.values()].sort((a, b) => (a.uri < b.uri ? -1 : 1)));
    const skills: Skill[] = [];
    for (const [skillPath, frontmatter] of frontmatters) {
      if (!REG_NAME.test(skillPath.split('/')[0] as string)) throw new TypeError(`Skill path "${skillPath}" does not start with a valid URI authority`);
      const prefix = `${skillPath}/`;
      const own = paths.filter((path) => path.startsWith(prefix));
      if (own.length > SKILL_LIMITS.maxFiles) throw new TypeError(`Skill "${skillPath}" has ${own.length} files, over the extension's limit of ${SKILL_LIMITS.maxFiles}`);
      const resources = own.map((path) => {
        const file = this.files.get(this.uriOf(path)) as SkillFile;
        return skillResource(file.uri, file.bytes);
      });
      const total = resources.reduce((sum, resource) => sum + resource.size, 0);
      if (total > SKILL_LIMITS.maxTotalBytes) throw new TypeError(`Skill "${skillPath}" holds ${total} bytes, over the extension's limit of ${SKILL_LIMITS.maxTotalBytes}`);
      const skill: Skill = Object.freeze({ uri: this.uriOf(`${skillPath}/${SKILL_FILE}`), frontmatter, resources: Object.freeze(resources) });
      skills.push(skill);
      this.bySkillUri.set(skill.uri, skill);
    }
    this.skills = Object.freeze(skills.sort((a, b) => (a.uri < b.uri ? -1 : 1)));
  }

  /** The entry of the skill whose SKILL.md is at `uri`. */
  skill(uri: string): Skill | undefined {
    return this.bySkillUri.get(uri);
  }

  /** A file of the directory. */
  file(uri: string): SkillFile | undefined {
    return this.files.get(uri);
  }

  /** Every file, ordered by URI. */
  allFiles(): IterableIterator<SkillFile> {
    return this.files.values();
  }

  /** The direct children of the folder at `uri` (no trailing slash), or `undefined` when it is not a folder here. */
  folder(uri: string): readonly Resource[] | undefined {
    return this.folders.get(uri);
  }

  private uriOf(path: string): string {
    return `${this.scheme}://${path}`;
  }
}

function skillFrontmatter(path: string, bytes: Uint8Array, folder: string): SkillFrontmatter {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new TypeError(`${path} is not UTF-8 text`);
  }
  const read = readFrontmatter(text);
  if (!read.ok) throw new TypeError(`${path}: ${read.reason}`);
  const frontmatter = read.frontmatter as SkillFrontmatter;
  if (frontmatter.name !== folder) throw new TypeError(`${path}: its frontmatter name "${frontmatter.name}" is not its folder's name "${folder}"`);
  if (!SKILL_NAME.test(frontmatter.name)) throw new TypeError(`${path}: "${frontmatter.name}" breaks the Agent Skills naming rules (1-64 of a-z, 0-9 and single inner hyphens)`);
  return Object.freeze(frontmatter);
}

/** A SKILL.md's resource: named and described by its frontmatter; its other fields under the extension's `_meta` prefix. */
function skillFileResource(uri: string, frontmatter: SkillFrontmatter, size: number): Resource {
  const { name, description, ...rest } = frontmatter;
  const fields = Object.keys(rest);
  const meta: JsonObject = Object.fromEntries(fields.map((field) => [`${SKILLS_META_PREFIX}${field}`, rest[field]]));
  return { uri, name, description, mimeType: 'text/markdown', size, ...(fields.length === 0 ? {} : { _meta: meta }) };
}

function folderResource(uri: string, name: string): Resource {
  return { uri, name, mimeType: DIRECTORY_MIME_TYPE };
}
