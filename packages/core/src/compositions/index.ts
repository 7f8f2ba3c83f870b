export { create, destroy, update } from './commands.ts';
export type { CompositionDeps } from './deps.ts';
export { enqueueNextStep } from './dispatch.ts';
export {
  advanceOperation,
  type Chain,
  chainFrom,
  chainWrite,
  completeOperation,
  failOperation,
  handOff,
  isCurrentOperation,
  isUnfinished,
  leasedByAnother,
  leaseSeconds,
  leaseUntil,
  nextStep,
  overdueAt,
  type StepFailure,
  type StepOutcome,
  startOperation,
  supersedeOperation,
  waitOperation,
} from './lifecycle.ts';
export {
  type Blocker,
  type CompositionEvent,
  type CompositionRecord,
  EventType,
  type MessageSubscriptionState,
  type Operation,
  OperationKind,
  OperationStatus,
  OwnerKind,
  Phase,
  StepName,
} from './model.ts';
export { plan } from './planning.ts';
export type { CompositionStore, JobQueue } from './ports.ts';
export { get, getEndpoints, getStatus, list, listEvents } from './reads.ts';
export {
  type ReplayDeps,
  ReplayReport,
  ReplayRequest,
  replayDeadJobs,
} from './replay.ts';
export {
  defaultFailureGraceMs,
  destroyFinished,
  entryRoute,
  type ForkBase,
  type ForkTarget,
  forkableBases,
  inheritedAgain,
  mayHaveInherited,
  pendingEntryRoute,
  progressDeadlineFailure,
  RolloutBlockerCode,
  type RolloutTarget,
  rolloutBlocker,
  rolloutComplete,
  rolloutFailure,
  rolloutFinished,
  rolloutTarget,
  rolloutWait,
  stepFailedBlocker,
  waitLimits,
  watchBoundMs,
} from './rollout.ts';
export {
  CompositionEndpointsView,
  CompositionList,
  CompositionStatusView,
  CompositionView,
  CreateCompositionBody,
  EventList,
  EventView,
  maxOverrides,
  maxTtlSeconds,
  minTtlSeconds,
  PlanView,
  UpdateCompositionBody,
} from './schema.ts';
export { expireDue, nextDueBefore, redispatchOverdue } from './sweeps.ts';
