/** Off the recipe's use-case files: one per thing they act on (policies, previews, deliveries). */
export type { ChangeRecord } from './change-model.ts';
export { convergeRepository, ingest, processDelivery, type SignatureCheck } from './deliveries.ts';
export { listDeliveries } from './delivery-list.ts';
export { convergePullRequest } from './drive.ts';
export { listInstallations, listRepositories } from './installations.ts';
export {
  type Delivery,
  FeedbackMode,
  GroupBy,
  type InstallationSuspension,
  noFeedback,
  ownerSubject,
  type PreviewPolicy,
  type PreviewRecord,
  PreviewState,
  type PullRequest,
  type RateBudget,
  type ReconciliationRun,
  type WebhookHealth,
} from './model.ts';
export { deletePolicy, getPolicy, listPolicies, putPolicy } from './policies.ts';
export {
  type DeploymentInput,
  type DeploymentStatusInput,
  defaultForgeSettings,
  ForgeContendedError,
  type ForgeDeliveryAttempt,
  type ForgeDeps,
  type ForgePort,
  ForgeRateLimitedError,
  type ForgeSettings,
  type ForgeStore,
  type PolicyWrite,
} from './ports.ts';
export { buildPublished, getPreview, listPreviews, restart, stop, stopForComposition } from './previews.ts';
export {
  DeliveryList,
  DeliveryView,
  ForgeStatusView,
  InstallationPage,
  PreviewList,
  PreviewPolicyBody,
  PreviewPolicyList,
  PreviewPolicyView,
  PreviewView,
  RepositoryPage,
} from './schema.ts';
export { type ForgeConfiguration, status } from './status.ts';
export { dispatchDeliveries, reconcile, recordBudgets } from './sweeps.ts';
