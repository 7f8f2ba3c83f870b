/** The tool set, one definition per tool for both hosts. Kept small: every tool listed costs an agent context. */
import type { Tool } from '../tool.ts';
import { catalog, resolveSource } from './catalog.ts';
import { destroy, update } from './changes.ts';
import {
  create,
  diagnosis,
  endpoints,
  events,
  get,
  list,
  logs,
  plan,
  verification,
  wait,
  wake,
} from './compositions.ts';
import { prPreviews } from './pr-previews.ts';

const sets = new Map<number, readonly Tool[]>();

/** The tools for a host whose calls may last `waitLimitSeconds`; built once per limit. */
export function toolSet(options: { waitLimitSeconds: number }): readonly Tool[] {
  const known = sets.get(options.waitLimitSeconds);
  if (known) return known;
  const tools = [
    catalog,
    resolveSource,
    plan,
    create,
    wait(options.waitLimitSeconds),
    get,
    list,
    endpoints,
    logs,
    events,
    diagnosis,
    verification,
    update,
    wake,
    destroy,
    prPreviews,
  ];
  sets.set(options.waitLimitSeconds, tools);
  return tools;
}
