// Test harness: a forge with a webhook receiver, and octokit clients built the way the service will
// build them (auth-app, paginate, throttling, retry), pointed at the forge.

import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAppAuth } from '@octokit/auth-app';
import { Octokit as Core } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import { retry } from '@octokit/plugin-retry';
import { type ThrottlingOptions, throttling } from '@octokit/plugin-throttling';
import { type LocalForge, type LocalForgeOptions, startLocalForge } from '../src/index.ts';

export const Octokit = Core.plugin(paginateRest, throttling, retry);
export type Octokit = InstanceType<typeof Octokit>;

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  /** The exact bytes received, as signature verification needs them. */
  body: string;
  event: string;
  delivery: string;
  signature: string;
  payload: Record<string, unknown> & { action?: string };
}

export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  /** Status the receiver answers with; 204 by default. */
  status: number;
  /** How long the receiver takes to answer; 0 by default. */
  delayMs: number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const receiver = { status: 204, delayMs: 0 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({
        headers: request.headers,
        body,
        event: String(request.headers['x-github-event']),
        delivery: String(request.headers['x-github-delivery']),
        signature: String(request.headers['x-hub-signature-256']),
        payload: JSON.parse(
          request.headers['content-type'] === 'application/x-www-form-urlencoded'
            ? (new URLSearchParams(body).get('payload') ?? '')
            : body,
        ) as ReceivedWebhook['payload'],
      });
      setTimeout(() => response.writeHead(receiver.status).end(), receiver.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/webhooks/forge`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}

export interface Harness {
  forge: LocalForge;
  receiver: Receiver;
  /** The seeded installation (demo-org, holding demo-org/service-b). */
  installationId: number;
  close(): Promise<void>;
}

/** One app key for the whole test file: generating RSA keys is the slowest part of starting a forge. */
const appKey = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;

export async function startHarness(options: Partial<LocalForgeOptions> = {}): Promise<Harness> {
  const receiver = await startReceiver();
  const forge = await startLocalForge({
    webhookUrl: receiver.url,
    seed: true,
    privateKey: appKey,
    ...options,
  });
  const installationId = forge.state().installations[0]?.id;
  if (installationId === undefined) throw new Error('the seeded installation is missing');
  return {
    forge,
    receiver,
    installationId,
    close: async () => {
      await forge.stop();
      await receiver.close();
    },
  };
}

const quietLog = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

interface ClientOptions {
  throttle?: ThrottlingOptions;
  retries?: number;
}

function clientDefaults(forge: LocalForge, options: ClientOptions) {
  return {
    baseUrl: forge.url,
    log: quietLog,
    // Throttling queues writes one per second across the process; tests that are not about
    // throttling turn it off so they stay fast.
    throttle: options.throttle ?? {
      enabled: false,
      onRateLimit: () => false,
      onSecondaryRateLimit: () => false,
    },
    retry: { retries: options.retries ?? 0, retryAfterBaseValue: 10 },
  };
}

/** Authenticated as an installation: auth-app trades the app JWT for (cached) installation tokens. */
export function installationClient(
  forge: LocalForge,
  installationId: number,
  options: ClientOptions = {},
): Octokit {
  return new Octokit({
    ...clientDefaults(forge, options),
    authStrategy: createAppAuth,
    auth: { appId: forge.appId, privateKey: forge.privateKey, installationId },
  });
}

/** Authenticated as the app itself (JWT). */
export function appClient(forge: LocalForge, options: ClientOptions = {}): Octokit {
  return new Octokit({
    ...clientDefaults(forge, options),
    authStrategy: createAppAuth,
    auth: { appId: forge.appId, privateKey: forge.privateKey },
  });
}

/** No credentials, or whatever `authorization` a test sets per request. */
export function bareClient(forge: LocalForge): Octokit {
  return new Octokit(clientDefaults(forge, {}));
}

/** What octokit throws for a non-2xx answer. */
export async function failure(promise: Promise<unknown>): Promise<{
  status: number;
  message: string;
  response?: { data: unknown; headers: Record<string, string | number | undefined> };
}> {
  try {
    await promise;
  } catch (error) {
    return error as Awaited<ReturnType<typeof failure>>;
  }
  throw new Error('expected the request to fail');
}
