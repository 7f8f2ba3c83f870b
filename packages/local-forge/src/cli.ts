// `npm run forge -- <verb> …`: runs the forge (`serve`) or drives a running one through /_control,
// printing the JSON answer. Exit code 1 with the problem on stderr when the forge refuses.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const USAGE = `usage: npm run forge -- <verb> [arguments] [--url URL] [--sender LOGIN]

  serve [--port 8083] [--webhook-url URL] [--webhook-secret S] [--app-id N]
        [--private-key-file FILE] [--state-file FILE] [--seed] [--content-type json|form]
  state
  open <owner/repo> --head BRANCH [--base BRANCH] [--title T] [--author LOGIN] [--draft]
                    [--label NAME]... [--fork OWNER]
  push <owner/repo#N> [--sha SHA]
  label <owner/repo#N> <label>          unlabel <owner/repo#N> <label>
  close <owner/repo#N> [--merged]       reopen <owner/repo#N>
  base <owner/repo#N> <branch>
  install <owner/repo>                  uninstall <owner/repo | owner>
  suspend <owner>                       unsuspend <owner>
  fail-deliveries <N>
  rate-limit <N> [--secondary] [--retry-after SECONDS]
  server-errors <N> [--status 502]

--url defaults to $FORGE_URL, else http://127.0.0.1:$FORGE_PORT (8083 when unset), the
port \`npm start\` gives the forge; serve's --port defaults to $FORGE_PORT too.
`;

class UsageError extends Error {}

const OPTIONS = {
  url: { type: 'string' },
  sender: { type: 'string' },
  head: { type: 'string' },
  base: { type: 'string' },
  title: { type: 'string' },
  author: { type: 'string' },
  draft: { type: 'boolean' },
  label: { type: 'string', multiple: true },
  fork: { type: 'string' },
  sha: { type: 'string' },
  merged: { type: 'boolean' },
  secondary: { type: 'boolean' },
  'retry-after': { type: 'string' },
  status: { type: 'string' },
  port: { type: 'string' },
  'webhook-url': { type: 'string' },
  'webhook-secret': { type: 'string' },
  'app-id': { type: 'string' },
  'private-key-file': { type: 'string' },
  'state-file': { type: 'string' },
  seed: { type: 'boolean' },
  'content-type': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse() {
  try {
    return parseArgs({ allowPositionals: true, options: OPTIONS });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

const { values, positionals } = parse();

/** The port `npm start` gives the forge follows FORGE_PORT; so do the verbs that drive it. */
const defaultPort = process.env.FORGE_PORT ?? '8083';
const baseUrl = (values.url ?? process.env.FORGE_URL ?? `http://127.0.0.1:${defaultPort}`).replace(/\/$/, '');

function arg(index: number, what: string): string {
  const value = positionals[index];
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
}

function count(value: string | undefined, what: string): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < 0) {
    throw new UsageError(`${what} must be a non-negative integer, got "${value ?? ''}"`);
  }
  return n;
}

/** `owner/repo#N` → the control path of that pull request. */
function pullPath(ref: string): string {
  const match = /^([^/#\s]+)\/([^/#\s]+)#(\d+)$/.exec(ref);
  if (!match) throw new UsageError(`expected owner/repo#NUMBER, got "${ref}"`);
  return `/_control/pulls/${match[1]}/${match[2]}/${match[3]}`;
}

function withSender(body: Record<string, unknown>): Record<string, unknown> {
  return values.sender ? { ...body, sender: values.sender } : body;
}

async function call(method: string, path: string, body?: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    ...(body ? { body: JSON.stringify(body) } : {}),
  }).catch((error: unknown) => {
    throw new Error(`no forge at ${baseUrl} (${String(error)}); start one with: npm run forge -- serve`);
  });
  const text = await response.text();
  if (!response.ok) {
    process.stderr.write(`${text}\n`);
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
}

function contentType(value: string | undefined): 'json' | 'form' {
  if (value === undefined || value === 'json' || value === 'form') return value ?? 'json';
  throw new UsageError(`--content-type must be json or form, got "${value}"`);
}

function privateKeyFrom(file: string | undefined): string | undefined {
  if (!file || !existsSync(file)) return undefined;
  return readFileSync(file, 'utf8');
}

async function serve(): Promise<void> {
  const keyFile = values['private-key-file'];
  const privateKey = privateKeyFrom(keyFile);
  const appId = values['app-id'] === undefined ? undefined : count(values['app-id'], '--app-id');
  // Loaded only here, so the client verbs start fast.
  const { startLocalForge } = await import('./forge.ts');
  const forge = await startLocalForge({
    port: count(values.port ?? defaultPort, '--port'),
    webhookContentType: contentType(values['content-type']),
    webhookUrl: values['webhook-url'] ?? null,
    seed: values.seed ?? false,
    ...(values['webhook-secret'] ? { webhookSecret: values['webhook-secret'] } : {}),
    ...(appId !== undefined ? { appId } : {}),
    ...(privateKey ? { privateKey } : {}),
    ...(values['state-file'] ? { stateFile: values['state-file'] } : {}),
  });
  if (keyFile && !privateKey) writeFileSync(keyFile, forge.privateKey, { mode: 0o600 });
  process.stdout.write(
    `${JSON.stringify({ url: forge.url, appId: forge.appId, appSlug: forge.appSlug, webhookUrl: values['webhook-url'] ?? null })}\n`,
  );
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      void forge.stop().then(() => process.exit(0));
    });
  }
}

async function main(): Promise<void> {
  const verb = positionals[0];
  if (values.help || !verb) {
    process.stdout.write(USAGE);
    return;
  }
  switch (verb) {
    case 'serve':
      return serve();
    case 'state':
      return call('GET', '/_control/state');
    case 'open': {
      if (!values.head) throw new UsageError('open needs --head BRANCH');
      return call(
        'POST',
        '/_control/pulls',
        withSender({
          repository: arg(1, 'owner/repo'),
          head: values.head,
          ...(values.base ? { base: values.base } : {}),
          ...(values.title ? { title: values.title } : {}),
          ...(values.author ? { author: values.author } : {}),
          ...(values.draft ? { draft: true } : {}),
          ...(values.label ? { labels: values.label } : {}),
          ...(values.fork ? { fork: values.fork } : {}),
        }),
      );
    }
    case 'push':
      return call(
        'POST',
        `${pullPath(arg(1, 'owner/repo#N'))}/push`,
        withSender(values.sha ? { sha: values.sha } : {}),
      );
    case 'label':
      return call(
        'POST',
        `${pullPath(arg(1, 'owner/repo#N'))}/labels`,
        withSender({ label: arg(2, 'label') }),
      );
    case 'unlabel':
      return call(
        'DELETE',
        `${pullPath(arg(1, 'owner/repo#N'))}/labels/${encodeURIComponent(arg(2, 'label'))}`,
      );
    case 'close':
      return call(
        'POST',
        `${pullPath(arg(1, 'owner/repo#N'))}/close`,
        withSender({ merged: values.merged ?? false }),
      );
    case 'reopen':
      return call('POST', `${pullPath(arg(1, 'owner/repo#N'))}/reopen`, withSender({}));
    case 'base':
      return call('POST', `${pullPath(arg(1, 'owner/repo#N'))}/base`, withSender({ base: arg(2, 'branch') }));
    case 'install':
      return call('POST', '/_control/installations', withSender({ repository: arg(1, 'owner/repo') }));
    case 'uninstall':
      return call('DELETE', `/_control/installations/${arg(1, 'owner/repo or owner')}`);
    case 'suspend':
    case 'unsuspend':
      return call(
        'POST',
        `/_control/installations/${encodeURIComponent(arg(1, 'owner'))}/${verb}`,
        withSender({}),
      );
    case 'fail-deliveries':
      return call('POST', '/_control/faults', { webhookFailures: count(arg(1, 'N'), 'N') });
    case 'rate-limit':
      return call('POST', '/_control/faults', {
        rateLimit: {
          count: count(arg(1, 'N'), 'N'),
          kind: values.secondary ? 'secondary' : 'primary',
          ...(values['retry-after']
            ? { retryAfterSeconds: count(values['retry-after'], '--retry-after') }
            : {}),
        },
      });
    case 'server-errors':
      return call('POST', '/_control/faults', {
        serverErrors: {
          count: count(arg(1, 'N'), 'N'),
          ...(values.status ? { status: count(values.status, '--status') } : {}),
        },
      });
    default:
      throw new UsageError(`unknown verb "${verb}"`);
  }
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(error instanceof UsageError ? `${message}\n\n${USAGE}` : `${message}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
