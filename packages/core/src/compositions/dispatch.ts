import type { Operation } from '../operations/model.ts';
import { nextStep } from '../operations/state.ts';
import type { CompositionDeps } from './ports.ts';

/** Sends the operation's next step. A failed send is logged, not thrown: the redispatch sweep delivers it. */
export async function enqueueNextStep(
  deps: Pick<CompositionDeps, 'jobs' | 'log'>,
  operation: Operation,
  delaySeconds = 0,
): Promise<boolean> {
  const step = nextStep(operation);
  if (step === undefined) return false;
  try {
    await deps.jobs.send(
      { kind: 'step', operation_id: operation.id, composition_id: operation.composition_id, step },
      delaySeconds ? { delaySeconds } : {},
    );
    return true;
  } catch (error) {
    deps.log({
      level: 'warn',
      msg: 'enqueue failed; the redispatch sweep will retry',
      operation_id: operation.id,
      error: String(error),
    });
    return false;
  }
}
