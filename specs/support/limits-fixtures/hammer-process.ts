/**
 * The second process of the two-process rate-limit spec: `node --import tsx hammer-process.ts '<options JSON>'`.
 * Prints `ready` once connected, reads the start instant (epoch ms) from a line on stdin, hammers, and prints
 * its report as one JSON line.
 */
import { createInterface } from 'node:readline';
import { type HammerOptions, prepareHammer } from './hammer.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as HammerOptions;
const hammer = await prepareHammer(options);
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
const startAt = Number(await new Promise<string>((resolve) => lines.once('line', resolve)));
lines.close();
const report = await hammer.run(startAt);
process.stdout.write(`${JSON.stringify(report)}\n`);
await hammer.close();
