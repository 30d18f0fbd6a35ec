/**
 * A skills directory read from a folder: every regular file under it, by its path from the folder (symbolic links
 * and other special entries are skipped, so nothing outside the folder is served). The file system is a port the
 * caller passes (Node's, Deno's or Bun's `fs/promises` fits), so the library itself imports no runtime module:
 *
 *   import * as fs from 'node:fs/promises';
 *   const directory = await readSkillsFolder('./skills', fs);
 */
import { SkillDirectory } from './skill-directory.ts';

/** The part of a `fs/promises` module the reader uses. */
export interface SkillsFileSystem {
  readdir(path: string, options: { readonly withFileTypes: true }): Promise<readonly SkillsFolderEntry[]>;
  readFile(path: string): Promise<Uint8Array>;
}

/** A folder entry as `readdir(..., { withFileTypes: true })` gives it. */
export interface SkillsFolderEntry {
  readonly name: string;
  isFile(): boolean;
  isDirectory(): boolean;
}

export interface SkillsFolderOptions {
  /** Files read at most, over the whole folder (default 10 000): a larger tree is refused, not truncated. */
  readonly maxFiles?: number;
  /** Folder depth followed at most (default 16). */
  readonly maxDepth?: number;
}

/** Reads `root` into a skills directory (refused, with the reason, when it breaks the extension's rules). */
export async function readSkillsFolder(root: string, fs: SkillsFileSystem, options: SkillsFolderOptions = {}): Promise<SkillDirectory> {
  const maxFiles = options.maxFiles ?? 10_000;
  const maxDepth = options.maxDepth ?? 16;
  const files: Record<string, Uint8Array> = {};
  let count = 0;
  const base = root.replace(/[/\\]+$/, '');
  const walk = async (relative: string, depth: number): Promise<void> => {
    const entries = await fs.readdir(relative === '' ? base : `${base}/${relative}`, { withFileTypes: true });
    for (const entry of entries) {
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (depth >= maxDepth) throw new TypeError(`Skills folder ${root}: ${path} is deeper than ${maxDepth} levels`);
        await walk(path, depth + 1);
      } else if (entry.isFile()) {
        if (++count > maxFiles) throw new TypeError(`Skills folder ${root} holds more than ${maxFiles} files`);
        files[path] = await fs.readFile(`${base}/${path}`);
      }
    }
  };
  await walk('', 0);
  return new SkillDirectory(files);
}
