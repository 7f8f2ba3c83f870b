// Wires the forge together: state (optionally persisted), the GitHub API, the control routes, the
// webhook sender and the simulator, served on a loopback address.

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApi } from './api.ts';
import { AppAuth } from './auth.ts';
import { createControl } from './control.ts';
import { createForgeControl, type ForgeControl } from './forge-control.ts';
import { createPages, isPagePath } from './pages.ts';
import { loadState, StateFile } from './persistence.ts';
import { RateLimits } from './rate-limit.ts';
import { Renderer } from './render.ts';
import { RequestLog } from './request-log.ts';
import { type PushEvent, Simulator } from './simulator.ts';
import { AccountType, type AppRecord, emptyState, type ForgeState, timestamp } from './state.ts';
import { ForgeStore } from './store.ts';
import { DELIVERY_TIMEOUT_MS, type WebhookContentType, WebhookSender } from './webhooks.ts';

/** The repository `seed: true` installs the app on. */
const DEMO_REPOSITORY = 'demo-org/service-b';

export interface LocalForgeOptions {
  /** A loopback address; default '127.0.0.1'. Anything else is refused: the forge has no real auth on /_control. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Where webhooks go; absent or null: none are sent (as for a GitHub App without a webhook URL). */
  webhookUrl?: string | null;
  /** Default: the persisted one, else random. */
  webhookSecret?: string;
  /** Default: the persisted one, else 1. */
  appId?: number;
  /** The app's slug; its comments are by `<slug>[bot]`. Default 'preview-service'. */
  appSlug?: string;
  /** The app's private key (PEM, PKCS#1 or PKCS#8). Default: the persisted one, else a new RSA key. */
  privateKey?: string;
  /** Install the app on `demo-org/service-b` when the state is new (no webhook is sent for it). */
  seed?: boolean;
  /** JSON file that keeps state across restarts (contains the private key; written mode 0600). */
  stateFile?: string;
  /** Called after a pull request gets a new head commit (opened, pushed), after its webhooks. */
  onPush?: (push: PushEvent) => void | Promise<void>;
  /** A receiver slower than this fails the delivery; default 10 000 ms, as on GitHub. */
  deliveryTimeoutMs?: number;
  /** The app's webhook content type: `json` (default) or `form` (`payload=<url-encoded JSON>`). */
  webhookContentType?: WebhookContentType;
}

export interface LocalForge extends ForgeControl {
  /** Base URL of the GitHub API stand-in (use it as octokit's `baseUrl`), e.g. http://127.0.0.1:PORT */
  readonly url: string;
  readonly appId: number;
  readonly appSlug: string;
  /** The app's private key, PEM. */
  readonly privateKey: string;
  readonly webhookSecret: string;
  /** Points webhooks elsewhere (null: stop sending). */
  setWebhookUrl(url: string | null): void;
  /** Changes the app's webhook content type setting for the deliveries that follow. */
  setWebhookContentType(contentType: WebhookContentType): void;
  /** The API requests answered so far, by `METHOD route status` (numbers in the path as `{n}`). */
  requests(): Record<string, number>;
  /** Closes the server and writes the state file. */
  stop(): Promise<void>;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function newPrivateKey(): string {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
}

function initialState(options: LocalForgeOptions): ForgeState {
  const loaded = options.stateFile ? loadState(options.stateFile) : undefined;
  const app: AppRecord = {
    id: options.appId ?? loaded?.app.id ?? 1,
    slug: options.appSlug ?? loaded?.app.slug ?? 'preview-service',
    hookId: loaded?.app.hookId ?? 100_000 + Math.floor(Math.random() * 900_000),
    privateKey: options.privateKey ?? loaded?.app.privateKey ?? newPrivateKey(),
    webhookSecret: options.webhookSecret ?? loaded?.app.webhookSecret ?? randomBytes(20).toString('hex'),
    createdAt: loaded?.app.createdAt ?? timestamp(),
  };
  return loaded ? { ...loaded, app } : emptyState(app);
}

function seedDemo(store: ForgeStore): void {
  if (store.state.installations.length > 0) return;
  const [owner = '', name = ''] = DEMO_REPOSITORY.split('/');
  store.ensureAccount(owner, AccountType.organization);
  const repository = store.ensureRepository(owner, name);
  store.state.installations.push({
    id: store.nextId(),
    account: owner,
    repositoryIds: [repository.id],
    createdAt: timestamp(),
  });
  store.changed();
}

function listen(fetch: (request: Request) => Response | Promise<Response>, host: string, port: number) {
  return new Promise<Server>((resolve, reject) => {
    const server = serve({ fetch, hostname: host, port }, () => resolve(server as Server)) as Server;
    server.once('error', reject);
  });
}

/** Starts the GitHub API stand-in. See packages/local-forge/README.md. */
export async function startLocalForge(options: LocalForgeOptions = {}): Promise<LocalForge> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopback(host)) throw new Error(`local-forge listens on loopback only; got host "${host}"`);
  const state = initialState(options);
  let stateFile: StateFile | undefined;
  const store = new ForgeStore(state, () => stateFile?.schedule());
  if (options.stateFile) stateFile = new StateFile(options.stateFile, () => store.state);
  if (options.seed) seedDemo(store);

  const auth = new AppAuth(store);
  const render = new Renderer(store);
  const rateLimits = new RateLimits();
  const requests = new RequestLog();
  const webhooks = new WebhookSender(store, {
    url: options.webhookUrl ?? null,
    timeoutMs: options.deliveryTimeoutMs ?? DELIVERY_TIMEOUT_MS,
    ...(options.webhookContentType ? { contentType: options.webhookContentType } : {}),
  });
  const simulator = new Simulator({ store, render, webhooks, auth, onPush: options.onPush });
  const control = createForgeControl({ store, simulator, webhooks, rateLimits });
  const api = createApi({ store, auth, render, rateLimits, requests, webhooks, installations: simulator });
  const controlRoutes = createControl(control);
  const pages = createPages(store);

  const server = await listen(
    (request) => {
      const { pathname } = new URL(request.url);
      if (pathname.startsWith('/_control/')) return controlRoutes.fetch(request);
      if (request.method === 'GET' && isPagePath(pathname)) return pages.fetch(request);
      return api.fetch(request);
    },
    host,
    options.port ?? 0,
  );
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  render.base = url;
  stateFile?.schedule();

  return {
    ...control,
    url,
    appId: state.app.id,
    appSlug: state.app.slug,
    privateKey: state.app.privateKey,
    webhookSecret: state.app.webhookSecret,
    setWebhookUrl(next) {
      webhooks.url = next;
    },
    setWebhookContentType(contentType) {
      webhooks.contentType = contentType;
    },
    requests: () => requests.snapshot(),
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await stateFile?.flush();
    },
  };
}
