/**
 * `npm start`: the whole service on one machine, nothing to configure.
 * `npm start -- --fresh` wipes the saved state first; `--clusters 2` runs a second local cluster;
 * `--kubeconfig FILE [--context NAME]` adds a cluster of the team's own once it passed the check.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Auth, SettingsError } from '@svc/core';
import { kubeconfigContext } from '@svc/kube';
import { LocalStackSettings, settingsFromEnvironment } from '@svc/wiring';
import { localUsers } from './auth.ts';
import { gatewayPortOf, localClusterNames, OutsideClusterRefused } from './clusters.ts';
import { demoBaselineOn, image } from './demo.ts';
import { JavaMissingError } from './dynamodb-local.ts';
import { demoRepository } from './forge.ts';
import { portInUse } from './ports.ts';
import { sourceBuild } from './release.ts';
import { startStack } from './stack.ts';

const { values: flags } = parseArgs({
  options: {
    fresh: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
    auth: { type: 'string', default: 'dev' },
    clusters: { type: 'string', default: '1' },
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    'preview-url': { type: 'string' },
  },
});

if (flags.help) {
  console.log(`Usage: npm start [-- --fresh] [-- --auth dev|token|password|oidc] [-- --clusters N]
                 [-- --kubeconfig FILE [--context NAME] [--preview-url TEMPLATE]]

Runs the Preview Composition Service locally: DynamoDB Local, fauxqs (SQS/SNS), the API,
the worker and the schedules. State is kept in .svc/ across restarts.

  --fresh         delete .svc/ first and start from an empty state
  --auth <mode>   dev (default: every caller is Admin), token, password (seeded users) or
                  oidc (seeded users at a local OpenID provider); see docs/auth.md
  --clusters <n>  local clusters to run, 1 (default) to 4: local, local-2 (gateway on
                  GATEWAY_PORT+2), local-3 (+3)…, each with a demo baseline (staging, staging-2…)
  --kubeconfig <file>  add a cluster of your own (kind, k3d, a staging EKS), named after its
                  context, once the installation check passed for it; --context picks the
                  context (default: the file's current one), --preview-url the URL its previews
                  answer at (default http://{id}.{domain}/, its Gateway's); see docs/local-stack.md

Environment: HOST (default 127.0.0.1), PORT (default 8081), GATEWAY_PORT (default 8082),
FORGE_PORT (default 8083), POD_READY_DELAY_MS (default 1000), SVC_STATE_DIR (default .svc).`);
  process.exit(0);
}

const authModes: Auth.AuthMode[] = [
  Auth.AuthMode.Dev,
  Auth.AuthMode.Token,
  Auth.AuthMode.Password,
  Auth.AuthMode.Oidc,
];
const authMode = flags.auth as Auth.AuthMode;
if (!authModes.includes(authMode)) fail(`--auth must be one of ${authModes.join(', ')} (got ${flags.auth}).`);

const { host, port, gatewayPort, forgePort, podReadyDelayMs, ...server } = serverSettings();
const stateDir = resolve(server.stateDir);
const clusterCount = Number(flags.clusters);
if (!Number.isInteger(clusterCount) || clusterCount < 1 || clusterCount > 4)
  fail(`--clusters must be a number from 1 to 4, got ${flags.clusters}.`);
if (!flags.kubeconfig && (flags.context || flags['preview-url']))
  fail('--context and --preview-url go with --kubeconfig: the cluster of your own they describe.');
const clusterNames = localClusterNames(clusterCount);
// A file or context that cannot be used is a mistake in the command: said before anything starts.
if (flags.kubeconfig) {
  try {
    kubeconfigContext(flags.kubeconfig, flags.context);
  } catch (error) {
    fail((error as Error).message);
  }
}

const ports: [string, number][] = [
  ['PORT', port],
  ['GATEWAY_PORT', gatewayPort],
  ['FORGE_PORT', forgePort],
  ...clusterNames
    .slice(1)
    .map((name, i): [string, number] => [
      `GATEWAY_PORT+${i + 2} (${name}'s gateway)`,
      gatewayPortOf(gatewayPort, i + 1),
    ]),
];
for (const [name, taken] of ports) {
  const first = ports.find(([, p]) => p === taken)?.[0];
  if (first !== name) fail(`${first} and ${name} are both ${taken}: set one of them to another port.`);
  if (await portInUse(taken, host)) {
    fail(
      `Port ${taken} on ${host} is already taken (is another \`npm start\` running?). Stop it or set ${name.split(/[+ ]/)[0]}.`,
    );
  }
}
if (flags.fresh) rmSync(stateDir, { recursive: true, force: true });

const started = performance.now();
let stack: Awaited<ReturnType<typeof startStack>>;
try {
  stack = await startStack({
    host,
    port,
    gatewayPort,
    podReadyDelayMs,
    stateDir,
    authMode,
    build: sourceBuild(),
    forge: { port: forgePort },
    clusters: clusterCount,
    ...(flags.kubeconfig
      ? {
          outsideClusters: [
            {
              kubeconfig: flags.kubeconfig,
              ...(flags.context ? { context: flags.context } : {}),
              ...(flags['preview-url'] ? { previewUrl: flags['preview-url'] } : {}),
            },
          ],
        }
      : {}),
    log: (entry) => {
      if (entry.level !== 'debug') console.error(JSON.stringify(entry));
    },
  });
} catch (error) {
  if (error instanceof JavaMissingError || error instanceof OutsideClusterRefused) fail(error.message);
  throw error;
}

/** token mode: an Admin token for this run (expiring in a day), so the banner can show it. */
const localAdminToken =
  authMode === Auth.AuthMode.Token
    ? (
        await Auth.mintToken(stack.stores.tokens, {
          name: 'local-admin',
          grants: Auth.grantsOfRole(Auth.Role.Admin),
          createdBy: 'npm start',
          now: new Date(),
          expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
        })
      ).token
    : null;

/** Where `svc` and `npm run forge` look when told nothing; other ports are spelled out below. */
const defaultApiUrl = 'http://127.0.0.1:8081';
const defaultForgeUrl = 'http://127.0.0.1:8083';
const forgeUrl = stack.forge?.url ?? defaultForgeUrl;
const forgeFlag = forgeUrl === defaultForgeUrl ? '' : ` --url ${forgeUrl}`;
const apiHint =
  stack.apiUrl === defaultApiUrl
    ? ''
    : `\n  export SVC_API_URL=${stack.apiUrl}   # svc's default is ${defaultApiUrl}`;

console.log(`
Preview Composition Service is running (${Math.round(performance.now() - started)} ms)

  API              ${stack.apiUrl}   (auth mode: ${authBanner(authMode)})
  Health           ${stack.apiUrl}/healthz
  Web console      ${stack.apiUrl}/console
  MCP for agents   npx svc mcp   (stdio), or ${stack.apiUrl}/mcp (Streamable HTTP); see docs/mcp.md
  Preview gateway  http://<composition-id>.preview.localhost:${gatewayPort}/
  Kubernetes API   ${stack.clusterUrl}   (kubectl --kubeconfig ${stateDir}/kubeconfig get pods -n staging)
${clusterLines()}  Local forge      ${forgeUrl}/   (GitHub stand-in: the app is installed on ${demoRepository}; pull requests, comments and checks)
  State            ${stateDir}${flags.fresh ? ' (fresh)' : ''}

Try it:${apiHint}
  npx svc composition create --name my-first --image ${image('service-b')}
  npx svc composition wait <id>
  curl -s http://<id>.preview.localhost:${gatewayPort}/
  npx svc composition create --name sleepy --baseline staging-sleepy --image ${image('service-b')}   # sleeps after 2m idle, wakes on the next curl
${tryOtherClusters()}
A pull-request preview (label "preview"; the local CI publishes a build for every push):
  npm run forge -- open ${demoRepository} --head my-feature --label preview${forgeFlag}
  npx svc pr-preview list --project demo --limit 10
  npm run forge -- push ${demoRepository}#1${forgeFlag}      # then: unlabel ${demoRepository}#1 preview, close ${demoRepository}#1
  ${forgeUrl}/${demoRepository}/pull/1                # the pull request's comment and check run

Ctrl-C stops everything.
`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    console.error(`\n${signal}: stopping…`);
    await stack.stop();
    process.exit(0);
  });
}

/** A banner line per cluster besides `local`: where it answers and what runs on it. */
function clusterLines(): string {
  const others = stack.clusters.names.filter((name) => name !== clusterNames[0]);
  return others
    .map((name) => {
      if (!clusterNames.includes(name)) {
        return `  Cluster ${name.padEnd(8)} ${flags.kubeconfig}${flags.context ? ` (context ${flags.context})` : ''}, previews at ${flags['preview-url'] ?? 'http://{id}.{domain}/'}   (checked; apply a catalog whose baselines name cluster "${name}")\n`;
      }
      const run = stack.localClusterOf(name);
      const port = new URL(run.cluster.gatewayUrl).port;
      return `  Cluster ${name.padEnd(8)} ${run.cluster.url}, preview gateway http://<composition-id>.preview.localhost:${port}/   (baseline ${demoBaselineOn(name)}; kubectl --kubeconfig ${run.kubeconfigPath} get pods -n staging)\n`;
    })
    .join('');
}

/** The first steps again on each further local cluster's baseline. */
function tryOtherClusters(): string {
  return clusterNames
    .slice(1)
    .map((name) => {
      const port = new URL(stack.localClusterOf(name).cluster.gatewayUrl).port;
      return `  npx svc composition create --name on-${name} --baseline ${demoBaselineOn(name)} --image ${image('service-b')}   # then: curl -s http://<id>.preview.localhost:${port}/\n`;
    })
    .join('');
}

function authBanner(mode: Auth.AuthMode): string {
  if (mode === Auth.AuthMode.Dev) return 'dev — every caller is Admin, no token needed';
  if (mode === Auth.AuthMode.Token) {
    return `token — an Admin token for this run: export SVC_API_TOKEN=${localAdminToken}`;
  }
  const people = localUsers.map(
    (u) => `${u.username} / ${u.password} (${u.grants.map((g) => `${g.role} on ${g.project}`).join(', ')})`,
  );
  const where =
    mode === Auth.AuthMode.Oidc ? `at the local identity provider ${stack.identityProvider?.issuer}` : 'here';
  return `${mode} — run: npx svc auth login\n                   people ${where}:\n                     ${people.join('\n                     ')}`;
}

/** HOST, PORT, the other ports, the pods' delay and the state, through the settings' one parse. */
function serverSettings() {
  try {
    return settingsFromEnvironment(LocalStackSettings, process.env).server;
  } catch (error) {
    if (error instanceof SettingsError) fail(error.message);
    throw error;
  }
}

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}
