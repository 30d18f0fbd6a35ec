// Starts a command, and once it prints "listening" stops it (SIGTERM, by its pid) and waits for it to exit,
// so that its CPU time is counted with this process's.
import { spawn } from 'node:child_process';
const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
let seen = false;
child.stdout.on('data', (chunk) => {
  if (!seen && String(chunk).includes('listening')) {
    seen = true;
    child.kill('SIGTERM');
  }
});
child.on('exit', () => process.exit(seen ? 0 : 1));
