/**
 * Opens a URL in the user's browser: `$BROWSER` when set (the convention of terminals and remote shells), else
 * the platform's opener. The URL is passed as one argument, never through a shell, so nothing in it can run. A
 * failure to open is not a failure of the login: the URL is printed too, and the user can paste it.
 */
import { spawn } from 'node:child_process';

function opener(url: string, env: NodeJS.ProcessEnv): { command: string; args: string[] } {
  const browser = env['BROWSER'];
  if (browser !== undefined && browser.trim() !== '') return { command: browser.trim(), args: [url] };
  switch (process.platform) {
    case 'darwin':
      return { command: 'open', args: [url] };
    case 'win32':
      // Not `cmd /c start`: cmd would read `&` in the query as a command separator.
      return { command: 'rundll32', args: ['url.dll,FileProtocolHandler', url] };
    default:
      return { command: 'xdg-open', args: [url] };
  }
}

/** Resolves once the opener started (true) or could not be started (false); never rejects. */
export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const { command, args } = opener(url, env);
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { stdio: 'ignore', detached: true, shell: false });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
