/**
 * `McpServer.describe()`: the server's name and version, the revisions its eras serve, and its catalog revision,
 * a digest of its lists that is the same for the same catalog and moves with every change of a tool, prompt,
 * resource or template (and comes back when the change is undone). A session host says the same.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LEGACY_REVISIONS, MODERN_REVISIONS } from '../../core/protocol/versions.ts';
import { type McpServer, createServer } from '../../server/create-server.ts';
import { createSessionHost } from '../../server/session-host.ts';

function withCatalog(server: McpServer): McpServer {
  server.tool({ name: 'echo', description: 'says it back' }, () => 'echo');
  server.prompt({ name: 'greet' }, () => 'hello');
  server.resource({ uri: 'test://one', name: 'one' }, () => 'one');
  return server;
}

describe('server describe', () => {
  test('server describe - name, version and the revisions each choice of eras serves', () => {
    const both = createServer({ name: 'described', version: '2.1.0' }).describe();
    assert.deepEqual(both.serverInfo, { name: 'described', version: '2.1.0' });
    assert.deepEqual(both.revisions, [...LEGACY_REVISIONS, ...MODERN_REVISIONS]);
    assert.deepEqual(createServer({ name: 'm', version: '1', eras: 'modern' }).describe().revisions, [...MODERN_REVISIONS]);
    assert.deepEqual(createServer({ name: 'l', version: '1', eras: 'legacy', supportedVersions: ['2025-06-18', '2024-11-05'] }).describe().revisions, ['2024-11-05', '2025-06-18']);
  });

  test('server describe - the catalog revision is one digest for one catalog, and moves with each change', async () => {
    const first = withCatalog(createServer({ name: 'a', version: '1' }));
    const second = withCatalog(createServer({ name: 'b', version: '2' }));
    const start = first.describe().catalogRevision;
    assert.match(start, /^[0-9a-f]{16}$/);
    assert.equal(second.describe().catalogRevision, start, 'the same lists, the same revision');
    assert.notEqual(createServer({ name: 'a', version: '1' }).describe().catalogRevision, start);

    const seen = new Set([start]);
    const added = first.tool({ name: 'added' }, () => 'added');
    const withTool = first.describe().catalogRevision;
    assert.ok(!seen.has(withTool), 'adding a tool moves it');
    seen.add(withTool);
    added.remove();
    assert.equal(first.describe().catalogRevision, start, 'removing it again comes back');
    first.tool({ name: 'added', description: 'now with a description' }, () => 'added');
    const replaced = first.describe().catalogRevision;
    assert.ok(!seen.has(replaced), 'the same tool name with another definition is another catalog');
    seen.add(replaced);
    first.prompt({ name: 'bye' }, () => 'bye');
    assert.ok(!seen.has(first.describe().catalogRevision), 'a prompt moves it');
    seen.add(first.describe().catalogRevision);
    first.resourceTemplate({ uriTemplate: 'test://{id}', name: 'any' }, () => 'x');
    assert.ok(!seen.has(first.describe().catalogRevision), 'a template moves it');
  });

  test('server describe - a session host describes the server it hosts', async () => {
    const server = withCatalog(createServer({ name: 'hosted', version: '3.0.0' }));
    const host = createSessionHost(server);
    assert.deepEqual(host.describe?.(), server.describe());
    await host.close();
  });
});
