/**
 * The command line's per-server credential files (cli/client/login/credential-files.ts) on a real temporary
 * directory: the XDG location rule, 0700/0600 modes, one file per server named without the URL, whole-file
 * writes, removal, and a file of another server never read as this one's.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CredentialFiles, rxmcpConfigDir } from '../../../cli/client/login/credential-files.ts';

describe('credential files', () => {
  const made: string[] = [];
  after(async () => {
    for (const dir of made) await rm(dir, { recursive: true, force: true });
  });
  async function fresh(): Promise<CredentialFiles> {
    const dir = await mkdtemp(join(tmpdir(), 'rxmcp-creds-'));
    made.push(dir);
    return new CredentialFiles(join(dir, 'rxmcp'));
  }

  test('the config directory follows XDG_CONFIG_HOME when absolute, else ~/.config', () => {
    assert.equal(rxmcpConfigDir({ XDG_CONFIG_HOME: '/x/conf' }), '/x/conf/rxmcp');
    assert.equal(rxmcpConfigDir({ XDG_CONFIG_HOME: 'relative' }), join(homedir(), '.config', 'rxmcp'));
    assert.equal(rxmcpConfigDir({}), join(homedir(), '.config', 'rxmcp'));
  });

  test('stores entries per server in a 0600 file inside a 0700 directory, the URL not in the name', async () => {
    const files = await fresh();
    await files.set('http://127.0.0.1:9/mcp', 'tokens', { accessToken: 'secret-a' });
    await files.set('http://127.0.0.1:9/mcp', 'client', { clientId: 'c1' });
    await files.set('http://127.0.0.1:10/mcp', 'tokens', { accessToken: 'secret-b' });
    assert.deepEqual(await files.get('http://127.0.0.1:9/mcp', 'tokens'), { accessToken: 'secret-a' });
    assert.deepEqual(await files.get('http://127.0.0.1:9/mcp#frag', 'client'), { clientId: 'c1' });
    assert.deepEqual(await files.get('http://127.0.0.1:10/mcp', 'tokens'), { accessToken: 'secret-b' });
    assert.equal(await files.get('http://127.0.0.1:11/mcp', 'tokens'), undefined);

    assert.equal((await stat(files.directory)).mode & 0o777, 0o700);
    const names = await readdir(files.directory);
    assert.equal(names.length, 2);
    for (const name of names) {
      assert.match(name, /^[0-9a-f]{32}\.json$/);
      assert.equal((await stat(join(files.directory, name))).mode & 0o777, 0o600);
    }
    assert.deepEqual(await files.servers(), ['http://127.0.0.1:10/mcp', 'http://127.0.0.1:9/mcp']);
  });

  test('removing the last entry or the server deletes the file', async () => {
    const files = await fresh();
    await files.set('http://127.0.0.1:9/mcp', 'tokens', { accessToken: 't' });
    await files.set('http://127.0.0.1:9/mcp', 'tokens', undefined);
    assert.deepEqual(await readdir(files.directory), []);
    await files.set('http://127.0.0.1:9/mcp', 'tokens', { accessToken: 't' });
    assert.equal(await files.remove('http://127.0.0.1:9/mcp'), true);
    assert.equal(await files.remove('http://127.0.0.1:9/mcp'), false);
    assert.deepEqual(await files.servers(), []);
  });

  test('a file that names another server, or is not JSON, reads as empty', async () => {
    const files = await fresh();
    await files.set('http://127.0.0.1:9/mcp', 'tokens', { accessToken: 't' });
    const file = files.fileOf('http://127.0.0.1:9/mcp');
    const body = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...body, server: 'http://evil.example/mcp' }));
    assert.deepEqual(await files.read('http://127.0.0.1:9/mcp'), {});
    await writeFile(file, '{not json');
    assert.deepEqual(await files.read('http://127.0.0.1:9/mcp'), {});
  });
});
