/**
 * Whether a program can be started, checked before anything is started with it: a command with a slash is a
 * path (relative to the working directory), any other is looked up on PATH the way `spawn` will.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** The file that would run for `command`, or a sentence saying why there is none. */
export function resolveCommand(command: string, env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): { readonly path: string } | { readonly problem: string } {
  if (command === '') return { problem: 'the command is empty' };
  if (command.includes('/') || isAbsolute(command)) {
    const path = resolve(cwd, command);
    const problem = notRunnable(path);
    return problem === undefined ? { path } : { problem: `${command} ${problem}` };
  }
  const directories = (env['PATH'] ?? '').split(delimiter).filter((directory) => directory !== '');
  for (const directory of directories) {
    const path = join(resolve(cwd, directory), command);
    if (notRunnable(path) === undefined) return { path };
  }
  return { problem: `${command} is not a program on PATH (${directories.length} director${directories.length === 1 ? 'y' : 'ies'} searched); give its path, or install it` };
}

function notRunnable(path: string): string | undefined {
  try {
    if (!statSync(path).isFile()) return 'is not a file';
  } catch {
    return 'does not exist';
  }
  try {
    accessSync(path, constants.X_OK);
  } catch {
    return 'is not executable (chmod +x it, or run it through its interpreter)';
  }
  return undefined;
}
