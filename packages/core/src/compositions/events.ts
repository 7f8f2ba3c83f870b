import { IdPrefix, newSortableId } from '../names.ts';
import type { CompositionEvent, CompositionRecord } from './model.ts';

/** An audit event of a composition, at the composition's generation unless told otherwise by the caller. */
export function eventFor(
  composition: Pick<CompositionRecord, 'id' | 'generation'>,
  type: CompositionEvent['type'],
  actor: CompositionEvent['actor'],
  operationId: string | null,
  now: Date,
  message: string,
  data: Record<string, unknown>,
): CompositionEvent {
  return {
    id: newSortableId(IdPrefix.Event, now),
    composition_id: composition.id,
    type,
    at: now.toISOString(),
    actor,
    operation_id: operationId,
    generation: composition.generation,
    message,
    data,
  };
}
