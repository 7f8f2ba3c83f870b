/**
 * The stack's settings as deployed functions' environments hold them, so they go through the same
 * parse and the same wiring as on AWS.
 */

import { Catalog } from '@svc/core';
import type { LocalForge } from '@svc/local-forge';
import { ServiceSettings, settingsFromEnvironment } from '@svc/wiring';
import { clusterVariables, gatewayTemplate, type NamedOutsideCluster } from '../clusters.ts';
import type { LocalForgeOptions } from '../forge.ts';
import type { Infrastructure } from './infrastructure.ts';
import { demoMessageTopics, localCursorKey, region, type StackOptions } from './options.ts';

/**
 * The stack's settings as a deployed API's environment holds them, so they go through the same
 * parse and the same wiring: the emulators' endpoints, the local cluster's kubeconfig, the local
 * forge's app, the auth mode's variables.
 */
export function stackEnvironment(
  options: StackOptions,
  infrastructure: Infrastructure,
  outside: readonly NamedOutsideCluster[],
  forge: LocalForge | null,
  auth: Record<string, string>,
): Record<string, string> {
  const { endpoints, resources, localClusters } = infrastructure;
  const [local] = localClusters;
  if (!local) throw new Error('the stack runs at least one local cluster');
  const namespaces = options.namespaces ?? Catalog.defaultNamespacePolicy;
  return {
    AWS_REGION: region,
    DYNAMODB_ENDPOINT: endpoints.dynamodbEndpoint,
    SQS_ENDPOINT: endpoints.sqsEndpoint,
    TABLE_NAME: resources.tableName,
    JOB_QUEUE_URL: resources.jobQueueUrl,
    DEAD_LETTER_QUEUE_URL: resources.deadLetterQueueUrl,
    PREVIEW_URL_TEMPLATE: gatewayTemplate(local.cluster),
    CURSOR_KEY: options.cursorKey ?? localCursorKey,
    MESSAGE_TOPICS: JSON.stringify(options.messageTopics ?? demoMessageTopics),
    ...(namespaces.allowed ? { PREVIEW_NAMESPACES: namespaces.allowed.join(',') } : {}),
    SERVICE_NAMESPACE: namespaces.serviceNamespace,
    // The template leaves the domain to the baseline: the demo's is the only one served here.
    PREVIEW_DOMAINS: (options.previewDomains ?? [localPreviewDomain]).join(','),
    // Said explicitly: previews here answer on 127.0.0.1, which a deployed routing check never reaches.
    PREVIEW_PRIVATE_ADDRESSES: options.previewPrivateAddresses === false ? 'refuse' : 'allow',
    ...(options.build ? { SVC_RELEASE: options.build.release, SVC_COMMIT: options.build.commit } : {}),
    ...clusterVariables(localClusters, outside, 'api', options.clusterAccess),
    ...(forge ? forgeEnvironment(forge, options.forge || {}) : {}),
    ...auth,
  };
}

/** The app the local forge installed, as a deployed function is given it (its secrets by SST). */
function forgeEnvironment(forge: LocalForge, options: LocalForgeOptions): Record<string, string> {
  return {
    FORGE_APP_ID: String(forge.appId),
    FORGE_PRIVATE_KEY: forge.privateKey,
    FORGE_WEBHOOK_SECRET: forge.webhookSecret,
    FORGE_API_URL: forge.url,
    FORGE_WRITE_INTERVAL_MS: String(options.writeIntervalMs ?? 250),
  };
}

/** What the local clusters' gateways serve previews on (packages/local-cluster's default). */
const localPreviewDomain = 'preview.localhost';

/**
 * The worker's settings: the API's with the worker's kubeconfigs, so on the stack's own clusters it
 * acts as its own identity (and the API as its), as on EKS.
 */
export function workerSettingsOf(
  environment: Record<string, string>,
  infrastructure: Infrastructure,
  outside: readonly NamedOutsideCluster[],
  access: StackOptions['clusterAccess'],
): ServiceSettings {
  return settingsFromEnvironment(ServiceSettings({ allowDev: true }), {
    ...environment,
    ...clusterVariables(infrastructure.localClusters, outside, 'worker', access),
  });
}
