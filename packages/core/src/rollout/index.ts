/** The worker's pure rules and its store port: no records, bodies or use cases of its own. */
export { RolloutBlockerCode, rolloutBlocker, rolloutFailure, stepFailedBlocker } from './blockers.ts';
export {
  type Chain,
  chainFrom,
  chainWrite,
  handOff,
  type StepFailure,
  type StepOutcome,
} from './chain.ts';
export {
  clusterUnavailableWait,
  isClusterUnavailable,
  needsCluster,
  unknownClusterOutcome,
} from './clusters.ts';
export {
  defaultFailureGraceMs,
  progressDeadlineFailure,
  rolloutComplete,
  watchBoundMs,
} from './health.ts';
export { observedCompositionStore } from './observed-store.ts';
export type { RolloutStore } from './ports.ts';
export {
  entryRoute,
  type ForkBase,
  type ForkTarget,
  forkableBases,
  inheritedAgain,
  mayHaveInherited,
  pendingEntryRoute,
  type RolloutTarget,
  rolloutTarget,
} from './target.ts';
export {
  advanceOperation,
  completeOperation,
  failOperation,
  startOperation,
  supersedeOperation,
  waitOperation,
} from './transitions.ts';
export { destroyFinished, rolloutFinished, rolloutWait } from './verdict.ts';
