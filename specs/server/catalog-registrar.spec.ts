/**
 * server/catalog-registrar.ts: a registration builds its entry once, refuses a second one under the same key,
 * and removes only itself.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ServerCatalog } from '../../actors/features/catalog.ts';
import { catalogRegistrar } from '../../server/catalog-registrar.ts';

describe('server catalog registrar', () => {
  test('each kind lands in its registry with its wire definition and compiled validator', async () => {
    const catalog = new ServerCatalog();
    const register = catalogRegistrar(catalog);
    register.tool({ name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] } }, () => 'ok');
    register.resource({ uri: 'file:///r', name: 'r' }, () => 'r');
    register.resourceTemplate({ uriTemplate: 'file:///{n}', name: 'n' }, () => 'n');
    register.prompt({ name: 'p' }, () => 'p');
    const tool = catalog.tools.get('add');
    assert.ok(tool);
    assert.ok(Object.isFrozen(tool.definition));
    assert.equal((await tool.input.validate({ a: 1 })).ok, true);
    assert.equal((await tool.input.validate({ a: 'one' })).ok, false);
    assert.equal(catalog.tools.get('add'), tool, 'the same entry for every reader: nothing rebuilt');
    assert.deepEqual([catalog.resources.size, catalog.templates.size, catalog.prompts.size], [1, 1, 1]);
  });

  test('a second registration under the same key is refused, and the first stays', () => {
    const catalog = new ServerCatalog();
    const register = catalogRegistrar(catalog);
    register.tool({ name: 'x' }, () => 'first');
    const first = catalog.tools.get('x');
    assert.throws(() => register.tool({ name: 'x' }, () => 'second'), /A tool named "x" is already registered/);
    register.prompt({ name: 'p' }, () => 'p');
    assert.throws(() => register.prompt({ name: 'p' }, () => 'again'), /A prompt named "p" is already registered/);
    register.resource({ uri: 'file:///r', name: 'r' }, () => 'r');
    assert.throws(() => register.resource({ uri: 'file:///r', name: 'again' }, () => 'r'), /A resource named "file:\/\/\/r"/);
    register.resourceTemplate({ uriTemplate: 'file:///{n}', name: 'n' }, () => 'n');
    assert.throws(() => register.resourceTemplate({ uriTemplate: 'file:///{n}', name: 'again' }, () => 'n'), /A resource template named/);
    assert.equal(catalog.tools.get('x'), first);
  });

  test('remove takes out its own entry only: a later registration under the same key stays', () => {
    const catalog = new ServerCatalog();
    const register = catalogRegistrar(catalog);
    const old = register.tool({ name: 'x' }, () => 'old');
    old.remove();
    assert.equal(catalog.tools.has('x'), false);
    register.tool({ name: 'x' }, () => 'new');
    const current = catalog.tools.get('x');
    old.remove();
    assert.equal(catalog.tools.get('x'), current);
  });

  test('an invalid definition is refused at registration and leaves nothing behind', () => {
    const catalog = new ServerCatalog();
    const register = catalogRegistrar(catalog);
    assert.throws(() => register.tool({ name: 'has space' }, () => 'x'), RangeError);
    assert.throws(() => register.resource({ uri: 'not absolute', name: 'r' }, () => 'r'), RangeError);
    assert.equal(catalog.tools.size + catalog.resources.size, 0);
  });
});
