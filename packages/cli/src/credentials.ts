/**
 * Which credential a request carries (spec 5.6): `SVC_API_TOKEN_FILE` beats `SVC_API_TOKEN`, and
 * both beat the saved login. Saved logins live in one owner-only file under the OS user-config
 * directory, keyed by server origin, shared with the local MCP adapter (format in docs/cli.md).
 */
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, ExitCode, invalidEnvironment, LocalCode, localProblem } from './errors.ts';

const CredentialSource = {
  TokenFile: 'token_file',
  Token: 'token',
  SavedLogin: 'saved_login',
  None: 'none',
} as const;
type CredentialSource = (typeof CredentialSource)[keyof typeof CredentialSource];

export interface Credential {
  source: CredentialSource;
  /** Bearer token to send, or null to send none (a dev-mode server needs none). */
  token: string | null;
  /** The token file, when that is the source. */
  file: string | null;
  /** When a long-running command (svc mcp) must resolve it again: a saved login's refresh time; null never. */
  renewAt: number | null;
}

/** One server's saved login. Access tokens last 15 minutes; the refresh token up to 30 days. */
export interface SavedLogin {
  access_token: string;
  access_token_expires_at: string;
  refresh_token: string | null;
  refresh_token_expires_at: string | null;
  subject: string | null;
  saved_at: string;
}

interface CredentialsFile {
  version: 1;
  /** Keyed by server origin (`https://svc.example.com`, `http://127.0.0.1:8081`). */
  servers: Record<string, SavedLogin>;
}

/** The OS user-config directory: XDG on Linux, Application Support on macOS, APPDATA on Windows. */
function userConfigDir(env: Readonly<Record<string, string | undefined>>): string {
  if (process.platform === 'win32') return env.APPDATA || join(homedir(), 'AppData', 'Roaming');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support');
  const xdg = env.XDG_CONFIG_HOME;
  return xdg?.startsWith('/') ? xdg : join(env.HOME || homedir(), '.config');
}

export function credentialsPath(env: Readonly<Record<string, string | undefined>>): string {
  return join(userConfigDir(env), 'svc', 'credentials.json');
}

const tokenShape = /^[\x21-\x7e]{1,4096}$/;

/** Access tokens this close to expiry are refreshed before use. */
const refreshMarginMs = 30_000;

/** `SVC_API_TOKEN_FILE` holds one token; what goes wrong names the file, never its content. */
async function tokenFileCredential(file: string): Promise<Credential> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'unreadable';
    throw invalidEnvironment('SVC_API_TOKEN_FILE', `${file}: ${reason}`);
  }
  const token = text.trim();
  if (!tokenShape.test(token)) {
    throw invalidEnvironment('SVC_API_TOKEN_FILE', `${file} must hold one token of printable characters`);
  }
  return { source: CredentialSource.TokenFile, token, file, renewAt: null };
}

function loginRequired(detail: string): CliError {
  return new CliError(localProblem(LocalCode.LoginRequired, detail), ExitCode.Auth);
}

/**
 * A saved login whose access token is about to expire, refreshed (the refresh token rotates) and
 * saved again; one that cannot be refreshed any more means signing in again.
 */
async function renewedLogin(
  env: Readonly<Record<string, string | undefined>>,
  apiUrl: URL,
  saved: SavedLogin,
  refresh: (refreshToken: string) => Promise<SavedLogin>,
): Promise<SavedLogin> {
  const refreshToken = saved.refresh_token;
  const refreshLive =
    saved.refresh_token_expires_at === null || Date.parse(saved.refresh_token_expires_at) > Date.now();
  if (refreshToken === null || !refreshLive) {
    throw loginRequired(
      `the saved login for ${apiUrl.origin} expired at ${saved.refresh_token_expires_at ?? saved.access_token_expires_at}; run "svc auth login" again, or set SVC_API_TOKEN_FILE or SVC_API_TOKEN`,
    );
  }
  let renewed: SavedLogin;
  try {
    renewed = await refresh(refreshToken);
  } catch (error) {
    if (!(error instanceof CliError) || error.problem.code !== LocalCode.LoginFailed) throw error;
    throw loginRequired(
      `the saved login for ${apiUrl.origin} could not be refreshed (${error.problem.detail}); run "svc auth login" again`,
    );
  }
  await saveLogin(env, apiUrl.origin, renewed);
  return renewed;
}

/**
 * The credential spec 5.6 selects. A saved login whose access token expired is refreshed with its
 * refresh token (rotated, and saved again) through `refresh`; never through a browser.
 */
export async function resolveCredential(
  env: Readonly<Record<string, string | undefined>>,
  apiUrl: URL,
  refresh: (refreshToken: string) => Promise<SavedLogin>,
): Promise<Credential> {
  const file = env.SVC_API_TOKEN_FILE?.trim();
  if (file) return tokenFileCredential(file);
  const token = env.SVC_API_TOKEN?.trim();
  if (token) {
    if (!tokenShape.test(token)) {
      throw invalidEnvironment('SVC_API_TOKEN', 'must be one token of printable characters, no spaces');
    }
    return { source: CredentialSource.Token, token, file: null, renewAt: null };
  }
  const saved = await readSavedLogin(env, apiUrl);
  if (!saved) return { source: CredentialSource.None, token: null, file: null, renewAt: null };
  const usable = Date.parse(saved.access_token_expires_at) - refreshMarginMs > Date.now();
  const login = usable ? saved : await renewedLogin(env, apiUrl, saved, refresh);
  return {
    source: CredentialSource.SavedLogin,
    token: login.access_token,
    file: null,
    renewAt: Date.parse(login.access_token_expires_at) - refreshMarginMs,
  };
}

/** The saved login for this server's origin, or null. Refuses a file others can read. */
export async function readSavedLogin(
  env: Readonly<Record<string, string | undefined>>,
  apiUrl: URL,
): Promise<SavedLogin | null> {
  const file = await readCredentialsFile(env);
  return file?.servers[apiUrl.origin] ?? null;
}

async function readCredentialsFile(
  env: Readonly<Record<string, string | undefined>>,
): Promise<CredentialsFile | null> {
  const path = credentialsPath(env);
  let mode: number;
  try {
    mode = (await stat(path)).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw unreadable(path, (error as Error).message);
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new CliError(
      localProblem(
        LocalCode.InsecureCredentials,
        `${path} is readable by other users (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${path}`,
        [{ path, message: 'must be mode 600' }],
      ),
      ExitCode.Failure,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw unreadable(path, (error as Error).message);
  }
  if (!isCredentialsFile(parsed)) throw unreadable(path, 'not a version 1 credentials file');
  return parsed;
}

function isCredentialsFile(value: unknown): value is CredentialsFile {
  if (typeof value !== 'object' || value === null) return false;
  const file = value as { version?: unknown; servers?: unknown };
  if (file.version !== 1 || typeof file.servers !== 'object' || file.servers === null) return false;
  return Object.values(file.servers).every(
    (login) =>
      typeof login === 'object' &&
      login !== null &&
      typeof (login as SavedLogin).access_token === 'string' &&
      tokenShape.test((login as SavedLogin).access_token) &&
      typeof (login as SavedLogin).access_token_expires_at === 'string',
  );
}

function unreadable(path: string, reason: string): CliError {
  return new CliError(
    localProblem(
      LocalCode.CredentialsUnreadable,
      `${path}: ${reason}; fix or delete it ("svc auth logout" removes this server's entry)`,
      [{ path, message: reason }],
    ),
    ExitCode.Failure,
  );
}

/** Replaces the file, owner-only (0600 in a 0700 directory) and atomically: a rename of a complete copy. */
async function writeCredentialsFile(
  env: Readonly<Record<string, string | undefined>>,
  file: CredentialsFile,
): Promise<void> {
  const path = credentialsPath(env);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32') await chmod(dirname(path), 0o700);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
}

/** Saves this origin's login, keeping the other servers' entries. */
export async function saveLogin(
  env: Readonly<Record<string, string | undefined>>,
  origin: string,
  login: SavedLogin,
): Promise<void> {
  const file = (await readCredentialsFile(env)) ?? { version: 1, servers: {} };
  await writeCredentialsFile(env, { ...file, servers: { ...file.servers, [origin]: login } });
}

/** Drops this origin's saved login. */
export async function removeSavedLogin(
  env: Readonly<Record<string, string | undefined>>,
  origin: string,
): Promise<boolean> {
  const file = await readCredentialsFile(env);
  if (!file || !(origin in file.servers)) return false;
  const { [origin]: _removed, ...servers } = file.servers;
  await writeCredentialsFile(env, { ...file, servers });
  return true;
}
