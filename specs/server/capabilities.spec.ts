/**
 * server/capabilities.ts: what a server declares follows what is registered, and the options.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ServerCatalog } from '../../actors/features/catalog.ts';
import { type CapabilitySources, declaredCapabilities } from '../../server/capabilities.ts';
import { catalogRegistrar } from '../../server/catalog-registrar.ts';

function setup(extra: Omit<CapabilitySources, 'catalog'> = {}) {
  const catalog = new ServerCatalog();
  return { register: catalogRegistrar(catalog), capabilities: declaredCapabilities({ catalog, ...extra }) };
}

describe('server capabilities', () => {
  test('an empty server declares logging only', () => {
    const { capabilities } = setup();
    assert.deepEqual(capabilities(), { logging: {} });
  });

  test('each kind registered brings its capability: tools, resources with subscriptions, prompts and completions', () => {
    const { register, capabilities } = setup();
    register.tool({ name: 'echo' }, () => 'ok');
    assert.deepEqual(capabilities(), { logging: {}, tools: { listChanged: true } });
    register.resource({ uri: 'file:///a', name: 'a' }, () => 'a');
    assert.deepEqual(capabilities(), { logging: {}, tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } });
    register.prompt({ name: 'greet' }, () => 'hi');
    assert.deepEqual(capabilities(), {
      logging: {},
      completions: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
    });
  });

  test('a resource template alone declares resources and completions (its variables can be completed)', () => {
    const { register, capabilities } = setup();
    register.resourceTemplate({ uriTemplate: 'file:///{name}', name: 'files' }, () => 'x');
    assert.deepEqual(capabilities(), { logging: {}, completions: {}, resources: { subscribe: true, listChanged: true } });
  });

  test('removing the last registration of a kind withdraws its capability', () => {
    const { register, capabilities } = setup();
    const tool = register.tool({ name: 'echo' }, () => 'ok');
    assert.ok(capabilities().tools);
    tool.remove();
    assert.deepEqual(capabilities(), { logging: {} });
  });

  test('the 2025-11-25 tasks are declared when enabled, and the declared options go over the derived ones', () => {
    const tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    const { register, capabilities } = setup({ tasks, declared: { experimental: { x: {} }, tools: { listChanged: false } } });
    register.tool({ name: 'echo' }, () => 'ok');
    assert.deepEqual(capabilities(), { logging: {}, tools: { listChanged: false }, tasks, experimental: { x: {} } });
  });

  test('one frozen object per catalog shape: asked again, or after a change of the same shape, it is the same object', () => {
    const { register, capabilities } = setup();
    register.tool({ name: 'a' }, () => 'ok');
    const first = capabilities();
    assert.ok(Object.isFrozen(first));
    assert.equal(capabilities(), first);
    register.tool({ name: 'b' }, () => 'ok');
    assert.equal(capabilities(), first, 'a second tool changes nothing declared');
    register.prompt({ name: 'p' }, () => 'x');
    assert.notEqual(capabilities(), first);
  });

  test('a template added beside resources brings completions, whatever was asked before', () => {
    const { register, capabilities } = setup();
    register.resource({ uri: 'file:///a', name: 'a' }, () => 'a');
    assert.equal(capabilities().completions, undefined);
    register.resourceTemplate({ uriTemplate: 'file:///{name}', name: 'files' }, () => 'x');
    assert.deepEqual(capabilities().completions, {});
  });
});
