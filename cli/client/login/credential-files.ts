/**
 * Where `rxmcp` keeps what a login earned, per server: one JSON file per MCP server under the user's config
 * directory (`$XDG_CONFIG_HOME/rxmcp/credentials`, else `~/.config/rxmcp/credentials`), named by a hash of the
 * server's URL so no URL reaches a file name. Directory 0700, files 0600, written whole (temporary file then
 * rename) so a crash never leaves half a token.
 */
import { createHash, randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** `$XDG_CONFIG_HOME/rxmcp` when that is an absolute path (the XDG rule), else `~/.config/rxmcp`. */
export function rxmcpConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env['XDG_CONFIG_HOME'];
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.config'), 'rxmcp');
}

/** A server's stored record: whatever the OAuth client keeps for it (tokens, its registration). */
export type CredentialRecord = Readonly<Record<string, unknown>>;

interface CredentialFile {
  readonly server: string;
  readonly entries: Readonly<Record<string, CredentialRecord>>;
}

/**
 * The files of one user's logins. Each server's file holds named entries (the OAuth client's keys: tokens,
 * client registration, ...), so the OAuth client's token store maps onto it directly.
 */
export class CredentialFiles {
  readonly directory: string;

  constructor(configDir: string = rxmcpConfigDir()) {
    this.directory = join(configDir, 'credentials');
  }

  /** The file that holds `server`'s credentials. */
  fileOf(server: string): string {
    return join(this.directory, `${createHash('sha256').update(serverKey(server)).digest('hex').slice(0, 32)}.json`);
  }

  async read(server: string): Promise<Readonly<Record<string, CredentialRecord>>> {
    let text: string;
    try {
      text = await readFile(this.fileOf(server), 'utf8');
    } catch (error) {
      if (isMissing(error)) return {};
      throw error;
    }
    try {
      const file = JSON.parse(text) as Partial<CredentialFile>;
      // A file for another server under this name (a hash collision, a copied file) is not ours to use.
      if (file.server !== serverKey(server) || typeof file.entries !== 'object' || file.entries === null) return {};
      return file.entries;
    } catch {
      return {};
    }
  }

  async get(server: string, name: string): Promise<CredentialRecord | undefined> {
    return (await this.read(server))[name];
  }

  async set(server: string, name: string, record: CredentialRecord | undefined): Promise<void> {
    const entries: Record<string, CredentialRecord> = { ...(await this.read(server)) };
    if (record === undefined) delete entries[name];
    else entries[name] = record;
    if (Object.keys(entries).length === 0) {
      await this.remove(server);
      return;
    }
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    await chmod(this.directory, 0o700);
    const file = this.fileOf(server);
    const temporary = `${file}.${randomUUID()}.tmp`;
    const body: CredentialFile = { server: serverKey(server), entries };
    try {
      await writeFile(temporary, `${JSON.stringify(body)}\n`, { mode: 0o600, flag: 'wx' });
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  /** Forgets everything about `server`; resolves whether there was something to forget. */
  async remove(server: string): Promise<boolean> {
    try {
      await rm(this.fileOf(server));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  /** The servers with stored credentials. */
  async servers(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    const servers: string[] = [];
    for (const name of names.filter((entry) => entry.endsWith('.json'))) {
      try {
        const file = JSON.parse(await readFile(join(this.directory, name), 'utf8')) as Partial<CredentialFile>;
        if (typeof file.server === 'string') servers.push(file.server);
      } catch {
        // An unreadable file lists as nothing.
      }
    }
    return servers.sort();
  }
}

/** The server's URL as a key: without fragment, query kept (a different query may be a different server). */
export function serverKey(server: string): string {
  const url = new URL(server);
  url.hash = '';
  return url.href;
}

function isMissing(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ENOENT';
}
