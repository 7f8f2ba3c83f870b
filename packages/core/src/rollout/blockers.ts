/** The blockers a rollout reports (each code listed in docs/orchestration.md) and the failures carrying them. */
import type { Blocker } from '../compositions/model.ts';
import type { StepFailure } from './chain.ts';

export const RolloutBlockerCode = {
  BaselineMissing: 'baseline_missing',
  ComponentMissing: 'component_missing',
  BaselineWorkloadMissing: 'baseline_workload_missing',
  BaselineServiceMissing: 'baseline_service_missing',
  ContainerMissing: 'container_missing',
  MessagingNotConfigured: 'messaging_not_configured',
  MessagingTopicMissing: 'messaging_topic_missing',
  MessagingAccessDenied: 'messaging_access_denied',
  MessagingQuotaExceeded: 'messaging_quota_exceeded',
  MessagingCleanupFailed: 'messaging_cleanup_failed',
  AnchorMissing: 'anchor_missing',
  ProgressDeadlineExceeded: 'progress_deadline_exceeded',
  ImagePullFailed: 'image_pull_failed',
  CrashLoop: 'crash_loop',
  StepFailed: 'step_failed',
  /** The composition's cluster is not one of the stage's (any more). */
  UnknownCluster: 'unknown_cluster',
  /** The composition's cluster does not answer; its step waits (only the diagnosis reports it). */
  ClusterUnavailable: 'cluster_unavailable',
} as const;
export type RolloutBlockerCode = (typeof RolloutBlockerCode)[keyof typeof RolloutBlockerCode];

export interface RolloutBlocker extends Blocker {
  code: RolloutBlockerCode;
}

export function rolloutBlocker(
  code: RolloutBlockerCode,
  message: string,
  component: string | null = null,
): RolloutBlocker {
  return { code, message, component };
}

/** A step's failure with one blocker. */
export function rolloutFailure(
  code: RolloutBlockerCode,
  message: string,
  component: string | null = null,
): StepFailure {
  return { kind: 'fail', blockers: [rolloutBlocker(code, message, component)] };
}

/**
 * A step that kept failing until the queue's last receive. `cause` is a short, outward cause
 * (core's `outwardCause`); the error itself is in the worker log under the operation id.
 */
export function stepFailedBlocker(
  step: string,
  receiveCount: number,
  cause: string,
  operationId: string,
): RolloutBlocker {
  return rolloutBlocker(
    RolloutBlockerCode.StepFailed,
    `step ${step} failed ${receiveCount} times; last error: ${cause} (the worker log has the detail under operation ${operationId})`,
  );
}
