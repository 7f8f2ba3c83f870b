export { isCurrentOperation } from './fence.ts';
export { leasedByAnother, leaseSeconds, leaseUntil, overdueAt } from './lease.ts';
export { type Operation, OperationKind, OperationStatus, OwnerKind, StepName } from './model.ts';
export { isUnfinished, nextStep } from './state.ts';
