export { ControlError } from './errors.ts';
export { DEMO_REPOSITORY, type LocalForge, type LocalForgeOptions, startLocalForge } from './forge.ts';
export type { Faults, FaultsInput, ForgeControl, ForgeStateSummary } from './forge-control.ts';
export { type RateLimitFault, RateLimitKind, type ServerErrorFault } from './rate-limit.ts';
export type {
  ControlResult,
  OpenPullRequestInput,
  PullRequestSummary,
  PullRequestTarget,
  PushEvent,
} from './simulator.ts';
export type { DeliverySummary } from './webhooks.ts';
