/**
 * The NATS flags of the commands, as users run them, against a real nats-server that demands a token:
 * `rxmcp serve --nats` with `--nats-token` (and `--trust-gateway`) serves the demo, `rxmcp call nats://...`
 * reaches it with the token from `NATS_TOKEN`, and without it the call fails saying NATS refused it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { killChildren } from '../../support/interop-processes.ts';
import { startNatsServer } from '../../support/nats-server.ts';
import { gatewayKeys } from '../../transports/nats/identity-keys.ts';
import { runCli, startCli } from './cli-process.ts';

after(() => killChildren());

test('rxmcp serve --nats and rxmcp call nats:// with a token (flag and NATS_TOKEN); without it NATS refuses', async () => {
  await using nats = await startNatsServer({ config: () => 'authorization { token: "cli-t0ken" }' });
  const dir = await mkdtemp(join(tmpdir(), 'rxmcp-cli-nats-'));
  try {
    const keyFile = join(dir, 'gateway.pub.jwk');
    await writeFile(keyFile, JSON.stringify((await gatewayKeys('gw')).publicJwk));
    const served = startCli(['serve', '--nats', nats.url, '--nats-token', 'cli-t0ken', '--name', 'clidemo', '--trust-gateway', keyFile]);
    try {
      // The serve command says where it serves on stdout.
      for (let waited = 0; !/rxmcp demo server on NATS .* as mcp\.clidemo, trusting 1 gateway key/.test(served.stdout()); waited += 50) {
        if (waited > 60_000 || served.child.exitCode !== null) assert.fail(`serve --nats did not start: ${served.stdout()} ${served.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const target = `${nats.url}/clidemo`;
      const called = await runCli(['call', target, 'stats', 'numbers=[1,2,3]'], { env: { ...process.env, NATS_TOKEN: 'cli-t0ken' } });
      assert.equal(called.code, 0, called.stderr);
      assert.match(called.stdout, /"sum"\s*:\s*6/);
      const refused = await runCli(['call', target, 'stats', 'numbers=[1]'], { env: { ...process.env, NATS_TOKEN: '' } });
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /Authorization Violation/i);
    } finally {
      served.child.kill('SIGTERM');
      await served.done;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
