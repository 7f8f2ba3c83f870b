/**
 * What a local stack is asked for, and the defaults every part of it shares: the region, the
 * emulators' deadlines, the cursor key, the demo's topic.
 */
import type { Auth, Catalog, Clock, Compositions, Forge, Jobs, Log } from '@svc/core';
import type { WorkerSettings } from '@svc/worker';
import type { LocalAuthOptions } from '../auth.ts';
import type { LocalClusterAccess, OutsideCluster } from '../clusters.ts';
import type { LocalForgeOptions } from '../forge.ts';

export interface StackOptions {
  host?: string;
  /** Where baselines may be (default: anywhere but the cluster's own namespaces and svc-system). */
  namespaces?: Catalog.NamespacePolicy;
  /** What each cluster takes (projects, namespaces, preview domains), as a stage's `clusterAccess`. */
  clusterAccess?: Readonly<Record<string, LocalClusterAccess>>;
  /** The domains previews answer on (default: the local clusters' `preview.localhost`). */
  previewDomains?: readonly string[];
  /**
   * Whether the routing check may reach loopback and private addresses: the local stack's gateways
   * are on 127.0.0.1, so it says so (default true); false to see the check refuse them.
   */
  previewPrivateAddresses?: boolean;
  /** API port; 0 picks a free one. */
  port?: number;
  /**
   * Preview gateway port of `local`; absent or 0 picks free ones (`npm start` asks for 8082, and
   * for `local-2`… two and more above it: `gatewayPortOf`).
   */
  gatewayPort?: number;
  /** The stack's own local clusters: `local`, and from 2 on `local-2`…, each with a demo baseline (default 1). */
  clusters?: number;
  /**
   * Clusters of the team's own, reached only through their kubeconfig (`npm start -- --kubeconfig`):
   * each is checked as `svc installation check` would before the stack uses it, and refused if it fails.
   */
  outsideClusters?: readonly OutsideCluster[];
  /** Keep state here across restarts (DynamoDB Local, fauxqs, the cluster); absent = in memory (tests). */
  stateDir?: string;
  /** Reuse running emulators (the test harness shares one of each per run). */
  emulators?: { dynamodbEndpoint: string; sqsEndpoint: string };
  /** Prefix for the table and queue names, isolating test files on shared emulators. */
  resourcePrefix?: string;
  log?: Log;
  /** Time for the API, worker and sweeps; tests move it instead of sleeping. */
  clock?: Clock;
  /** Run the queue poller (default true); tests of the queue itself turn it off. */
  worker?: boolean;
  /** Seed the demo catalog and deploy its baseline (default true). */
  seed?: boolean;
  /** Wrap the job queue, e.g. to make sends fail in a test. */
  wrapJobs?: (jobs: Jobs.JobQueue) => Jobs.JobQueue;
  /** Wrap the composition store the worker writes through, e.g. to crash between a cluster write and its record. */
  wrapWorkerStore?: (store: Compositions.CompositionStore) => Compositions.CompositionStore;
  /** Base of the poller's retry backoff in seconds (default 1); 0 retries at once. */
  retryBaseSeconds?: number;
  /** Auth mode: `dev` (default), or any other; password and oidc come with seeded users. */
  authMode?: Auth.AuthMode;
  /** The mode's settings and seeded people (see `localAuth`). */
  auth?: Omit<LocalAuthOptions, 'mode'>;
  /** The cost of the password hashes written (default OWASP's, as deployed). */
  passwordCost?: Auth.ScryptCost;
  /** Local cluster: time for a healthy pod to become Ready (default 1000 ms). */
  podReadyDelayMs?: number;
  workerSettings?: Partial<WorkerSettings>;
  /** Release and commit `/version` reports (default: `dev`, `unknown`). */
  build?: { release: string; commit: string };
  /** The local forge (a GitHub stand-in with the app installed on demo-org/service-b); false: none. */
  forge?: LocalForgeOptions | false;
  /** How often the console's live parts refresh, in milliseconds (default: each page's own). */
  consoleRefreshMs?: number;
  /** Forge timings (tests poll faster). */
  forgeSettings?: Partial<Forge.ForgeSettings>;
  /** Seals page cursors (default: {@link localCursorKey}). */
  cursorKey?: string;
  /**
   * The stage's `messageTopics`: what the catalog may name and the worker's policy grants (default:
   * the demo's topic).
   */
  messageTopics?: readonly string[];
}

/** The demo baseline's topic (packages/local/demo/catalog.json), granted unless told otherwise. */
export const demoMessageTopics: readonly string[] = ['demo-events'];

/**
 * The local stack's cursor key. Not a secret: a cursor only names a position in a list, the seal
 * binds it to its list, and the local stack listens on loopback only. Installations configure
 * their own (`CURSOR_KEY`).
 */
export const localCursorKey = 'local-stack-cursor-key-not-a-secret';

/** The region every client of the stack names (the emulators answer any). */
export const region = 'us-east-1';

/** Emulators on a busy laptop (or a test run on two cores) answer slower than AWS: longer deadlines. */
export const emulatorTimeouts = { connectionMs: 5000, requestMs: 20_000 };

/** What stops what was started, run last first when the stack stops (or fails to start). */
export type Cleanups = (() => Promise<void>)[];
