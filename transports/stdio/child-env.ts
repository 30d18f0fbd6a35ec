/**
 * The environment a spawned server process gets.
 *
 * By default only a short list of variables a program needs to run at all (search path, home, user, shell,
 * terminal, locale, temp dir) is inherited from this process, as `sudo` and the official SDK do: an MCP
 * server is often third-party code, and the client's environment is full of credentials (API keys, cloud
 * tokens) it has no business seeing. `env` is merged over that base. `inheritEnv` changes the base:
 * `'all'` (everything, for trusted servers), `'none'` (only `env`), or an explicit list of names.
 */
export type EnvInheritance = 'safe' | 'all' | 'none' | readonly string[];

export const SAFE_ENV_VARS: readonly string[] = Object.freeze(
  process.platform === 'win32'
    ? [
        'APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PATHEXT', 'PROCESSOR_ARCHITECTURE', 'PROGRAMFILES',
        'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'TMP', 'USERNAME', 'USERPROFILE', 'COMSPEC',
      ]
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TMPDIR', 'TZ'],
);

export function childEnvironment(
  inherit: EnvInheritance = 'safe',
  env: Readonly<Record<string, string>> = {},
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const base: Record<string, string> = {};
  if (inherit === 'all') {
    for (const [name, value] of Object.entries(parent)) if (value !== undefined) base[name] = value;
  } else if (inherit !== 'none') {
    for (const name of inherit === 'safe' ? SAFE_ENV_VARS : inherit) {
      const value = parent[name];
      // A value starting with "()" is an exported shell function: code, not configuration.
      if (value === undefined || (inherit === 'safe' && value.startsWith('()'))) continue;
      base[name] = value;
    }
  }
  return { ...base, ...env };
}
