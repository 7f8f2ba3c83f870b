export { create, destroy, update } from './commands.ts';
export { enqueueNextStep } from './dispatch.ts';
export {
  type Blocker,
  type CompositionEvent,
  type CompositionRecord,
  EventActorKind,
  EventType,
  holdsQuotaPlace,
  type MessageSubscriptionState,
  Phase,
  waitLimits,
} from './model.ts';
export { plan } from './plan-request.ts';
export type { CompositionDeps, CompositionStore } from './ports.ts';
export { get, getEndpoints, getStatus, list, listEvents } from './reads.ts';
export {
  type ReplayDeps,
  ReplayReport,
  ReplayRequest,
  replayDeadJobs,
} from './replay.ts';
export {
  CompositionEndpointsView,
  CompositionList,
  CompositionStatusView,
  CompositionView,
  CreateCompositionBody,
  EventList,
  maxOverrides,
  maxTtlSeconds,
  minTtlSeconds,
  PlanView,
  UpdateCompositionBody,
} from './schema.ts';
export {
  crawlerUserAgentPattern,
  defaultSleepSettings,
  heldAwake,
  podHoursSaved,
  type SleepSettings,
  SleepSettingsInput,
  SleepState,
  sleepSettingsOf,
} from './sleep.ts';
export { observeSleeping } from './sleep-sweep.ts';
export { expireDue, nextDueBefore, redispatchOverdue } from './sweeps.ts';
export { wake, wakeForks } from './wake.ts';
